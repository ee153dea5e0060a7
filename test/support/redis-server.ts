import { spawn, type ChildProcess } from 'node:child_process';

/** Starts `redis-server` with these arguments; resolves once it accepts connections. */
export async function launchRedisServer(args: readonly string[]): Promise<ChildProcess> {
  const server = spawn('redis-server', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    server.on('exit', (code) => reject(new Error(`redis-server ${args.join(' ')} exited (${code}): ${output}`)));
  });
  return server;
}

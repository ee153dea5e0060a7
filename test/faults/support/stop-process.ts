import type { ChildProcess } from 'node:child_process';

/** Sends `signal` and waits for the exit; a process that already ended is left alone. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

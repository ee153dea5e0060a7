// The local Redis server's process, whose CPU the benchmarks count with the service's.
import { spawnSync } from 'node:child_process';

/** The pid of the redis-server on this machine; null when there is none (or pgrep is missing). */
export function redisServerPid() {
  const found = spawnSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' });
  const pid = Number(found.stdout?.trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

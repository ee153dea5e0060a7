// Memory and CPU of a process as the kernel counts them (every thread, native allocations included).
import { readFileSync } from 'node:fs';

/** VmRSS of `pid` in bytes; null when the process is gone or /proc is not there. */
export function residentBytes(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

// Linux reports utime and stime in clock ticks of 1/100 s.
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds `pid` has used so far (all its threads); null when unreadable. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

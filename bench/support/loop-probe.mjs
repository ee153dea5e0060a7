// Loaded into a service process with `node --import` by bench/http/waits.mjs: every second the
// `api` process's main event loop reports how busy it was (event-loop utilisation: the share of
// the time it ran callbacks, waiting for a core or for a synchronous call included) on stderr.
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

if (isMainThread && process.env.ROLE === 'api') {
  let last = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    process.stderr.write(`loop-utilisation ${performance.eventLoopUtilization(now, last).utilization.toFixed(3)}\n`);
    last = now;
  }, 1000).unref();
}

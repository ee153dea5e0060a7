// The two ways the soak drives load. Closed loop (to find the maximum): a fixed number of callers,
// each sending its next request when the last one is answered. Open loop (the soak itself): requests
// leave on a fixed schedule whether or not earlier ones were answered, so a slow service meets a
// growing queue instead of a politely waiting client, and latency is measured from the scheduled
// moment (a stall anywhere, the load generator included, counts against it).

/**
 * Calls `fire(i, scheduledAt)` at `ratePerSecond`, from now until `stop()`; `scheduledAt` is on the
 * performance.now() clock. Late ticks fire every request that has come due.
 */
export function startOpenLoop(ratePerSecond, fire) {
  const startedAt = performance.now();
  let fired = 0;
  let timer = null;
  let stopped = false;
  const tick = () => {
    // Request i is due at i / rate seconds: the first one at once.
    const due = Math.floor(((performance.now() - startedAt) * ratePerSecond) / 1000) + 1;
    while (fired < due) {
      fire(fired, startedAt + (fired * 1000) / ratePerSecond);
      fired++;
    }
    if (!stopped) timer = setTimeout(tick, 1);
  };
  tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      return fired;
    },
  };
}

/** `callers` loops of `send(i)` (awaited) until `seconds` have passed; resolves when all have returned. */
export async function runClosedLoop(callers, seconds, send) {
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) await send(next++);
    }),
  );
}

/**
 * What `work` answers, and how many turns of the event loop's check phase passed while it ran:
 * work done in one synchronous stretch (or only in microtasks) lets none pass. A turn is counted
 * with setImmediate, since a timer may not come due during short work.
 */
export async function countingLoopTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { value, turns };
  } finally {
    ticking = false;
  }
}

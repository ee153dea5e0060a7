/**
 * How long detection and verification work before they let the event loop serve everything else
 * (in role `all`, the API's requests). SQLite calls are synchronous, and awaiting one does not
 * reach the event loop, so without these turns a round would be one long synchronous stretch.
 */
export const DETECTION_SLICE_MS = 10;

/** Items a loop over a whole window handles between two calls of its TakeTurn (a call costs a look at the clock). */
export const TURN_EVERY = 256;

/** Call between small pieces of work: gives the event loop a turn once a slice has passed since the last one. */
export type TakeTurn = () => Promise<void>;

export function createTurnTaker(sliceMs: number = DETECTION_SLICE_MS): TakeTurn {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    // setImmediate runs after the poll phase: pending I/O (requests, replies) is served first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
}

// Follows one workflow: reads its state and whole log, then asks for `events?fromSeq=<last + 1>`
// until the workflow has ended or the operator left the page. Waits grow while nothing happens and
// shrink again when something does; the state is read again only after new events (it is the log
// replayed, so it cannot change without one).
import { WORKFLOW_ENDED } from './workflow-api.js';

const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 5000;

/**
 * `onUpdate({state, events})` gets the new events only; `onFailure(failure, {retrying})`. Returns
 * `stop()`, and `refresh()` to read at once (after the page itself changed the workflow).
 */
export function followWorkflow(api, id, { onUpdate, onFailure }) {
  let stopped = false;
  let timer = null;
  let lastSequence = 0;
  /** A round is reading; a refresh meanwhile makes the next one start at once. */
  let reading = false;
  let refreshed = false;

  const readNewEvents = async () => {
    const events = [];
    for (;;) {
      // Pages until an empty one: the service may answer fewer events than it holds.
      const batch = await api.events(id, lastSequence + 1);
      if (batch.length === 0) return events;
      events.push(...batch);
      lastSequence = batch.at(-1).sequence;
    }
  };

  const round = async (wait) => {
    timer = null;
    if (stopped) return;
    reading = true;
    refreshed = false;
    let next = Math.min(wait * 1.5, LONGEST_WAIT_MS);
    try {
      const events = await readNewEvents();
      if (stopped) return;
      if (events.length > 0 || lastSequence === 0) {
        const state = await api.state(id);
        if (stopped) return;
        onUpdate({ state, events });
        if (WORKFLOW_ENDED.includes(state.status)) return;
        next = FIRST_WAIT_MS;
      }
    } catch (failure) {
      if (stopped) return;
      // A refusal (403, 404) stays one; the service being away (0, 5xx) may pass.
      const retrying = failure.status === 0 || failure.status >= 500;
      onFailure(failure, { retrying });
      if (!retrying) return;
    } finally {
      reading = false;
    }
    timer = setTimeout(() => round(next), refreshed ? 0 : next);
  };

  void round(FIRST_WAIT_MS);
  return {
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
    refresh() {
      if (stopped) return;
      if (reading) {
        refreshed = true;
      } else if (timer !== null) {
        clearTimeout(timer);
        void round(FIRST_WAIT_MS);
      }
    },
  };
}

// Follows one workflow: reads its state and whole log, then follows its event stream, which the
// service pushes as events are appended, until the workflow has ended or the operator left the
// page. When the stream cannot be held (refused, or a proxy in the way answers no stream), it asks
// for `events?fromSeq=<last + 1>` instead, with waits that grow while nothing happens and shrink
// again when something does. The state is read again only after new events (it is the log
// replayed, so it cannot change without one).
import { FINAL_EVENTS, WORKFLOW_ENDED } from './workflow-api.js';

const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 5000;

/**
 * `onUpdate({state, events})` gets the new events only; `onFailure(failure, {retrying})`. Returns
 * `stop()`, and `refresh()` to read at once (after the page itself changed the workflow).
 */
export function followWorkflow(api, id, { onUpdate, onFailure }) {
  let stopped = false;
  let timer = null;
  let stopStream = null;
  let lastSequence = 0;
  /** A polling round is reading; a refresh meanwhile makes the next one start at once. */
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

  /** A refusal (403, 404) stays one; the service being away (0, 5xx) may pass. */
  const failed = (failure) => {
    const retrying = failure.status === 0 || failure.status >= 500;
    onFailure(failure, { retrying });
    return retrying;
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
      if (stopped || !failed(failure)) return;
    } finally {
      reading = false;
    }
    timer = setTimeout(() => round(next), refreshed ? 0 : next);
  };

  /** Events pushed since the last update, shown with the state read after them. */
  const pending = [];
  let delivering = false;
  const deliver = async () => {
    if (delivering) return;
    delivering = true;
    try {
      while (pending.length > 0 && !stopped) {
        const events = pending.splice(0);
        const state = await api.state(id);
        if (stopped) return;
        onUpdate({ state, events });
      }
    } catch (failure) {
      if (!stopped) failed(failure);
    } finally {
      delivering = false;
    }
  };

  const follow = () => {
    stopStream = api.followEvents(id, lastSequence + 1, {
      onEvent: (event) => {
        if (stopped || event.sequence <= lastSequence) return;
        lastSequence = event.sequence;
        pending.push(event);
        // The log has ended: the stream is not opened again.
        if (FINAL_EVENTS.includes(event.eventType)) stopStream?.();
        void deliver();
      },
      onUnavailable: () => {
        stopStream = null;
        if (!stopped) timer = setTimeout(() => round(FIRST_WAIT_MS), FIRST_WAIT_MS);
      },
    });
  };

  const start = async () => {
    try {
      const events = await readNewEvents();
      if (stopped) return;
      const state = await api.state(id);
      if (stopped) return;
      onUpdate({ state, events });
      if (!WORKFLOW_ENDED.includes(state.status)) follow();
    } catch (failure) {
      if (!stopped && failed(failure)) timer = setTimeout(() => round(FIRST_WAIT_MS), FIRST_WAIT_MS);
    }
  };

  void start();
  return {
    stop() {
      stopped = true;
      stopStream?.();
      if (timer !== null) clearTimeout(timer);
    },
    refresh() {
      // A held stream brings the page's own change like any other.
      if (stopped || stopStream !== null) return;
      if (reading) {
        refreshed = true;
      } else if (timer !== null) {
        clearTimeout(timer);
        void round(FIRST_WAIT_MS);
      }
    },
  };
}

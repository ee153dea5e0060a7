/**
 * Says that the caller of some evaluations has gone (its client hung up). An AbortSignal would do,
 * but Node makes every one a transferable object, which costs more per request than anything it
 * guards here; this is a flag and a list.
 */
export interface CallerGone {
  /** Why the caller went; undefined while it still waits. */
  readonly reason: unknown;
  /** Calls `listener` once when the caller goes; returns a function that unregisters it. */
  onGone(listener: () => void): () => void;
}

export interface CallerGoneSource extends CallerGone {
  /** Marks the caller gone (once; later calls do nothing). */
  markGone(reason: unknown): void;
}

export function createCallerGone(): CallerGoneSource {
  let reason: unknown;
  let listeners: Array<() => void> | null = [];
  return {
    get reason() {
      return reason;
    },
    onGone(listener) {
      if (listeners === null) {
        listener();
        return () => {};
      }
      listeners.push(listener);
      return () => {
        if (listeners !== null) listeners = listeners.filter((l) => l !== listener);
      };
    },
    markGone(why) {
      if (listeners === null) return;
      reason = why;
      const waiting = listeners;
      listeners = null;
      for (const listener of waiting) listener();
    },
  };
}

// Link lag as a run sees it from outside: the linking processes' histogram
// (policy_engine_audit_link_lag_seconds, stored → linked per record) and GET /api/v1/audit/verify
// polled for `unlinked` and `oldestUnlinkedAgeMs`.
import { scrape } from '../soak/prometheus-text.mjs';

export const LINK_LAG_METRIC = 'policy_engine_audit_link_lag_seconds';

/** The histogram's cumulative bucket counts summed over the processes' scrapes: `Map(le → count)`. */
export function linkLagBuckets(scrapes) {
  const buckets = new Map();
  for (const samples of scrapes) {
    for (const sample of samples ?? []) {
      if (sample.name !== `${LINK_LAG_METRIC}_bucket`) continue;
      const le = sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le);
      buckets.set(le, (buckets.get(le) ?? 0) + sample.value);
    }
  }
  return buckets;
}

/** Scrapes every process's metrics now and sums its link lag buckets. */
export async function scrapeLinkLag(processes) {
  return linkLagBuckets(await Promise.all(processes.map((p) => scrape(p.metricsUrl))));
}

/**
 * The q-quantile (0..1) in ms of the records linked between two bucket sums, as Prometheus's
 * histogram_quantile computes it (linear within the bucket); `{ms, count, beyond}`, where `beyond`
 * says the quantile fell past the largest finite bound (then `ms` is that bound).
 */
export function lagQuantile(from, to, q) {
  const bounds = [...to.keys()].sort((a, b) => a - b);
  const counts = bounds.map((le) => to.get(le) - (from.get(le) ?? 0));
  const count = counts.at(-1) ?? 0;
  if (count === 0) return { ms: null, count, beyond: false };
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const [i, le] of bounds.entries()) {
    if (counts[i] >= rank) {
      if (le === Infinity) return { ms: bounds[i - 1] * 1000, count, beyond: true };
      const share = counts[i] === below ? 0 : (rank - below) / (counts[i] - below);
      return { ms: (lower + (le - lower) * share) * 1000, count, beyond: false };
    }
    lower = le;
    below = counts[i];
  }
  return { ms: null, count, beyond: false };
}

const noneSeen = () => ({ polls: 0, failures: 0, maxUnlinked: 0, maxOldestAgeMs: 0, slowestPollMs: 0 });

/**
 * Polls `verify()` (resolving to the verify answer) every `intervalMs`, one call at a time, and keeps
 * the largest `unlinked` and `oldestUnlinkedAgeMs` seen: over the whole run (`seen`) and since the
 * last `window()`. `drain(intervalMs, timeoutMs)` switches to that interval and resolves with the ms
 * from the call until a poll sent after it answers `unlinked: 0` (null after `timeoutMs`).
 */
export function pollUnlinked(verify, intervalMs) {
  const seen = noneSeen();
  let inWindow = noneSeen();
  let interval = intervalMs;
  let stopped = false;
  let waiter = null;
  // Ends the wait between two polls (drain and stop do not wait out a long interval).
  let wake = () => {};

  const loop = (async () => {
    while (!stopped) {
      const sentAt = performance.now();
      let answer = null;
      try {
        answer = await verify();
      } catch {}
      for (const counts of [seen, inWindow]) {
        counts.polls++;
        counts.slowestPollMs = Math.max(counts.slowestPollMs, performance.now() - sentAt);
        if (answer === null || typeof answer.unlinked !== 'number') {
          counts.failures++;
        } else {
          counts.maxUnlinked = Math.max(counts.maxUnlinked, answer.unlinked);
          counts.maxOldestAgeMs = Math.max(counts.maxOldestAgeMs, answer.oldestUnlinkedAgeMs ?? 0);
        }
      }
      if (waiter !== null && answer?.unlinked === 0 && sentAt >= waiter.since) {
        waiter.resolve(performance.now() - waiter.since);
        waiter = null;
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, sentAt + interval - performance.now()));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    seen,
    /** What the polls since the last call saw; starts the next window. */
    window() {
      const closed = inWindow;
      inWindow = noneSeen();
      return closed;
    },
    drain(drainIntervalMs, timeoutMs) {
      interval = drainIntervalMs;
      const drained = new Promise((resolve) => {
        const since = performance.now();
        const timer = setTimeout(() => {
          waiter = null;
          resolve(null);
        }, timeoutMs);
        waiter = {
          since,
          resolve: (ms) => {
            clearTimeout(timer);
            resolve(ms);
          },
        };
      });
      wake();
      return drained;
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}

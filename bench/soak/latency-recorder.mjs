// Answers as the soak counts them: latency, failures by code and evaluations, per sampling window
// (closed every SAMPLE_SECONDS by run.mjs) and per request kind over the whole phase.

/** The p-th percentile (0..100) of ascending `sorted`, nearest rank; null when empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const ascending = (a, b) => a - b;

function emptyCounts() {
  return { latencies: [], answered: 0, failed: 0, evaluations: 0, failures: new Map() };
}

function add(counts, latencyMs, failure, evaluations) {
  counts.latencies.push(latencyMs);
  if (failure === null) {
    counts.answered++;
    counts.evaluations += evaluations;
  } else {
    counts.failed++;
    counts.failures.set(failure, (counts.failures.get(failure) ?? 0) + 1);
  }
}

/** `phase` names where answers go now ('probe', 'steady'); every phase keeps its own windows and kinds. */
export function createLatencyRecorder() {
  const phases = new Map();
  let phase = null;
  let window = null;

  const phaseOf = (name) => {
    if (!phases.has(name)) phases.set(name, { windows: [], kinds: new Map(), all: emptyCounts() });
    return phases.get(name);
  };

  return {
    /** Starts a phase; answers arriving from now on count in it (also those of requests sent before). */
    startPhase(name) {
      phase = phaseOf(name);
      window = emptyCounts();
    },

    record(kind, latencyMs, failure, evaluations) {
      if (phase === null) return;
      add(window, latencyMs, failure, evaluations);
      add(phase.all, latencyMs, failure, evaluations);
      if (!phase.kinds.has(kind)) phase.kinds.set(kind, emptyCounts());
      add(phase.kinds.get(kind), latencyMs, failure, evaluations);
    },

    /** Ends the current window: its figures, and the window is kept for the comparisons at the end. */
    closeWindow(endedAtSeconds) {
      const closed = { ...window, endedAtSeconds, latencies: window.latencies.sort(ascending) };
      phase.windows.push(closed);
      window = emptyCounts();
      return closed;
    },

    /** The windows of a phase that ended in (fromSeconds, toSeconds]. */
    windowsBetween(name, fromSeconds, toSeconds) {
      return phaseOf(name).windows.filter((w) => w.endedAtSeconds > fromSeconds && w.endedAtSeconds <= toSeconds);
    },

    phaseTotals(name) {
      const { all, kinds } = phaseOf(name);
      return { all, kinds };
    },
  };
}

/** p50, p99 and counts of several windows (or per-kind counts) together. */
export function summarise(counts) {
  const list = Array.isArray(counts) ? counts : [counts];
  const latencies = list.flatMap((c) => c.latencies).sort(ascending);
  const failures = new Map();
  for (const c of list) for (const [code, n] of c.failures) failures.set(code, (failures.get(code) ?? 0) + n);
  return {
    requests: latencies.length,
    answered: list.reduce((n, c) => n + c.answered, 0),
    failed: list.reduce((n, c) => n + c.failed, 0),
    evaluations: list.reduce((n, c) => n + c.evaluations, 0),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length === 0 ? null : latencies[latencies.length - 1],
    failures,
  };
}

// What the soak calls flat, stable and clean. The thresholds allow for a shared 2-core machine
// (other runs beside the soak move latency by tens of percent) while still catching a leak or a
// slowdown that grows with time.

/**
 * Memory is flat when each process's RSS floor (its lowest sample, every 10 s) over the last 2
 * minutes exceeds its floor over the first 2 minutes after warm-up by at most 10 % or 30 MB,
 * whichever is larger. Floors, not single samples: the API's heap gathers about 100 MB of garbage
 * between major collections, so one sample can sit anywhere in that swing, while the floor is the
 * memory that survives collection, where a leak accumulates. The report states what the allowance
 * comes to per request at the run's rate (the smallest leak per request the verdict would catch).
 */
export const MEMORY_GROWTH_SHARE = 0.1;
export const MEMORY_GROWTH_BYTES = 30 * 1024 * 1024;

/** p99 is stable when p99 of the last 2 minutes is at most 1.5× p99 of the first 2 minutes after warm-up. */
export const P99_GROWTH_RATIO = 1.5;
export const COMPARED_SECONDS = 120;

/** The scheduled detector must complete at least half the runs its interval allows, and fail none. */
export const DETECTOR_RUNS_SHARE = 0.5;

export const memoryAllowance = (startBytes) => Math.max(MEMORY_GROWTH_SHARE * startBytes, MEMORY_GROWTH_BYTES);

/** `{name, passed, detail}` per verdict. */
export function judge({ memory, requests, p99, errors, workflows, detector, audit }) {
  const MB = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
  const memoryDetails = memory.map(({ process, start, end }) => {
    const growth = end - start;
    const perRequest = Math.round(memoryAllowance(start) / requests);
    return {
      process,
      passed: growth <= memoryAllowance(start),
      text: `${process} RSS floor ${MB(start)} → ${MB(end)} (${growth >= 0 ? '+' : ''}${MB(growth)}, allowed +${MB(memoryAllowance(start))}: ${perRequest} bytes per request of the ${requests} between)`,
    };
  });
  const ratio = p99.last / p99.first;
  return [
    { name: 'memory flat', passed: memoryDetails.every((d) => d.passed), detail: memoryDetails.map((d) => d.text).join('; ') },
    {
      name: 'no error',
      passed: errors.total === 0,
      detail: errors.total === 0 ? 'no failed request, failed job or error log line' : errors.summary,
    },
    {
      name: 'p99 stable',
      passed: ratio <= P99_GROWTH_RATIO,
      detail: `last ${p99.last.toFixed(1)} ms vs first ${p99.first.toFixed(1)} ms: ${ratio.toFixed(2)}× (allowed ${P99_GROWTH_RATIO}×)`,
    },
    {
      name: 'workflows all completed',
      passed: workflows.started > 0 && workflows.completed === workflows.started && workflows.notStarted === 0,
      detail: `${workflows.completed} of ${workflows.started} started completed${workflows.notStarted > 0 ? `, ${workflows.notStarted} not started` : ''}`,
    },
    {
      name: 'scheduled detector ran',
      passed: detector.failed === 0 && detector.completed >= DETECTOR_RUNS_SHARE * detector.expected,
      detail: `${detector.completed} runs completed (every ${detector.intervalSeconds} s: ${detector.expected} possible), ${detector.failed} failed`,
    },
    {
      name: 'audit chain valid and complete',
      passed: audit.valid && audit.evaluationRecords >= audit.answeredEvaluations,
      detail: `${audit.valid ? 'valid' : 'INVALID'}, ${audit.records} records; ${audit.evaluationRecords} evaluation records for ${audit.answeredEvaluations} evaluations answered`,
    },
  ];
}

// Which rollups a detail charts: from the start of the anomaly's detection window (or an hour
// before it was detected) up to now, so the chart also shows whether it still happens; and as the
// baseline, the `baselineDays` before that start, summed per version.

const MINUTE = 60_000;
const MAX_POINTS = 1440; // the rollups endpoint's bound per series

export function chartWindow(anomaly, baselineDays, now = new Date()) {
  const windowStart = anomaly.metrics?.windowStart ?? new Date(Date.parse(anomaly.detectedAt) - 60 * MINUTE).toISOString();
  let start = Math.floor(Date.parse(windowStart) / MINUTE) * MINUTE;
  const end = now.getTime();
  let step = 'minute';
  for (const [name, ms] of [['minute', MINUTE], ['hour', 60 * MINUTE], ['day', 1440 * MINUTE]]) {
    step = name;
    // A window not aligned to whole steps covers one or two steps more.
    if ((end - start) / ms < MAX_POINTS - 2) break;
  }
  if (step === 'day') start = Math.max(start, end - (MAX_POINTS - 2) * 1440 * MINUTE);
  const baselineEnd = start - 1;
  return {
    window: { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString(), step },
    baseline: { startTime: new Date(start - baselineDays * 1440 * MINUTE).toISOString(), endTime: new Date(baselineEnd).toISOString(), step: 'day' },
  };
}

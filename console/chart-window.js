// Which rollups a detail charts: from the start of the anomaly's detection window (or an hour
// before it was detected) up to now, so the chart also shows whether it still happens; and as the
// baseline, the `baselineDays` before that start, summed per version.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 1440 * MINUTE;
const MAX_POINTS = 1440; // the rollups endpoint's bound per series

export function chartWindow(anomaly, baselineDays, now = new Date()) {
  const windowStart = anomaly.metrics?.windowStart ?? new Date(Date.parse(anomaly.detectedAt) - HOUR).toISOString();
  let start = Math.floor(Date.parse(windowStart) / MINUTE) * MINUTE;
  const end = now.getTime();
  let step = 'minute';
  for (const [name, ms] of [['minute', MINUTE], ['hour', HOUR], ['day', DAY]]) {
    step = name;
    // A window not aligned to whole steps covers one or two steps more.
    if ((end - start) / ms < MAX_POINTS - 2) break;
  }
  if (step === 'day') start = Math.max(start, end - (MAX_POINTS - 2) * DAY);
  // The endpoint widens a window to whole steps, so the baseline ends on a whole step of its own
  // at or before the window's first step: otherwise its last step would hold the window's rollups.
  const baselineStep = step === 'day' ? 'day' : 'hour';
  const baselineStepMs = baselineStep === 'day' ? DAY : HOUR;
  const baselineEnd = Math.floor(start / baselineStepMs) * baselineStepMs;
  return {
    window: { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString(), step },
    baseline: { startTime: new Date(baselineEnd - baselineDays * DAY).toISOString(), endTime: new Date(baselineEnd - 1).toISOString(), step: baselineStep },
  };
}

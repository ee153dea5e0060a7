// What each metric of an anomaly (and of its last verification) is called on the console, and the
// unit its value is shown in: the one table of them. A metric the service adds later shows under
// its own name, as a plain number, until it is listed here.

/** `unit`: percent (a fraction 0–1), ms, count, ratio, time (an ISO instant), version, number. */
const METRIC_LABELS = {
  failureRate: { label: 'Failure rate in the window', unit: 'percent' },
  baselineFailureRate: { label: 'Failure rate in the baseline', unit: 'percent' },
  threshold: { label: 'Failure rate that counts as high', unit: 'percent' },
  wilsonLowerBound: { label: 'Failure rate, lower bound (95 % confidence)', unit: 'percent' },
  failures: { label: 'Failed evaluations in the window', unit: 'count' },
  sampleSize: { label: 'Evaluations in the window', unit: 'count' },
  baselineSampleSize: { label: 'Evaluations in the baseline', unit: 'count' },
  evaluations: { label: 'Evaluations of this version in the window', unit: 'count' },
  functionEvaluations: { label: 'Evaluations of the function in the window (all versions)', unit: 'count' },
  shareOfTraffic: { label: 'Share of the function’s evaluations', unit: 'percent' },
  activeVersion: { label: 'Active version at detection', unit: 'version' },
  activeVersionId: { label: 'Active version id at detection', unit: 'text' },
  supersededSince: { label: 'Superseded since', unit: 'time' },
  windowMeanMs: { label: 'Mean execution time in the window', unit: 'ms' },
  baselineMeanMs: { label: 'Mean execution time in the baseline', unit: 'ms' },
  windowStdDevMs: { label: 'Standard deviation in the window', unit: 'ms' },
  baselineStdDevMs: { label: 'Standard deviation in the baseline', unit: 'ms' },
  windowMaxMs: { label: 'Slowest evaluation in the window', unit: 'ms' },
  ratio: { label: 'Slowdown (window mean ÷ baseline mean)', unit: 'ratio' },
  tStatistic: { label: 'Welch t statistic', unit: 'number' },
  degreesOfFreedom: { label: 'Degrees of freedom', unit: 'number' },
  pValue: { label: 'p-value (one-sided Welch test)', unit: 'number' },
  windowStart: { label: 'Window start', unit: 'time' },
  windowEnd: { label: 'Window end', unit: 'time' },
};

/** The metric's label and unit; an unlisted one keeps its name. */
export function metricLabel(name) {
  return Object.hasOwn(METRIC_LABELS, name) ? METRIC_LABELS[name] : { label: name, unit: 'number' };
}

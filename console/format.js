// How values are shown: times in UTC (the API's own zone, so what an operator reads matches the
// audit records), rates as percentages.

export function formatTime(iso) {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function formatPercent(rate) {
  return rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(rate < 0.01 && rate > 0 ? 2 : 1)} %`;
}

export function formatMs(ms) {
  return ms === null || ms === undefined ? '—' : `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
}

/** A metric from an anomaly's `metrics`: rates as percentages, ISO times shortened, the rest as given. */
export function formatMetric(name, value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number' && /Rate$|^shareOfTraffic$|^threshold$|^wilsonLowerBound$/.test(name)) return formatPercent(value);
  if (typeof value === 'number' && /Ms$/.test(name)) return formatMs(value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return formatTime(value);
  if (typeof value === 'number') return value.toLocaleString('en-US', { maximumFractionDigits: 6 });
  return String(value);
}

/** `HIGH_FAILURE_RATE` → `High failure rate`. */
export function humanize(constant) {
  const words = constant.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An evaluation error's message without the code it starts with, when it does (the code is shown beside it). */
export function errorMessageWithoutCode(code, message) {
  const text = String(message ?? '');
  return code && text.startsWith(code) ? text.slice(code.length).replace(/^[\s:]+/, '') : text;
}

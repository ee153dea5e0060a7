// How values are shown: times in UTC, 24-hour, to the minute (the API's own zone, so what an
// operator reads matches the audit records), rates as percentages. Every page, table, summary
// and chart axis formats its times here.
import { metricLabel } from './metric-labels.js';

const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;
const pad = (n) => String(n).padStart(2, '0');

/** An instant (ISO text, a Date, or milliseconds since 1970) as `2026-11-28 14:05 UTC`; `—` for none. */
export function formatTime(instant) {
  if (instant === null || instant === undefined || instant === '') return '—';
  const date = instant instanceof Date ? instant : new Date(instant);
  if (Number.isNaN(date.getTime())) return String(instant);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
}

/** A text the API wrote (a summary, a reason) with its ISO instants as formatTime writes them. */
export function withReadableTimes(text) {
  return String(text ?? '').replace(ISO_INSTANT, (iso) => formatTime(iso));
}

export function formatPercent(rate) {
  return rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(rate < 0.01 && rate > 0 ? 2 : 1)} %`;
}

export function formatMs(ms) {
  return ms === null || ms === undefined ? '—' : `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
}

/** A metric from an anomaly's `metrics` in the unit its label names (metric-labels.js). */
export function formatMetric(name, value) {
  if (value === null || value === undefined) return '—';
  const { unit } = metricLabel(name);
  if (typeof value === 'number' && unit === 'percent') return formatPercent(value);
  if (typeof value === 'number' && unit === 'ms') return formatMs(value);
  if (typeof value === 'number' && unit === 'ratio') return `${value.toLocaleString('en-US', { maximumFractionDigits: 2 })} ×`;
  if (typeof value === 'string' && unit === 'time') return formatTime(value);
  if (typeof value === 'number') return value.toLocaleString('en-US', { maximumFractionDigits: unit === 'count' ? 0 : 4 });
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

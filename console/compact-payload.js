// A record's payload in a table cell: one short line of its fields, the whole JSON one click away
// (a native disclosure, so it works with the keyboard and screen readers).
import { h } from './dom.js';

const SHORT_LENGTH = 90;

function shortValue(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return Array.isArray(value) ? `[${value.length}]` : '{…}';
}

export function compactPayload(payload) {
  const entries = Object.entries(payload ?? {});
  if (entries.length === 0) return h('span', { className: 'muted' }, '—');
  const line = entries.map(([name, value]) => `${name}=${shortValue(value)}`).join(' ');
  const short = line.length > SHORT_LENGTH ? `${line.slice(0, SHORT_LENGTH - 1)}…` : line;
  return h('details', { className: 'payload' }, h('summary', {}, h('code', {}, short)), h('pre', {}, JSON.stringify(payload, null, 2)));
}

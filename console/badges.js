// Severity and status as words with a colour, never by colour alone.
import { h } from './dom.js';

export function severityBadge(severity) {
  return h('span', { className: `badge severity-${String(severity).toLowerCase()}` }, severity);
}

export function statusBadge(status) {
  return h('span', { className: `badge status-${String(status).toLowerCase()}`, 'data-testid': 'status' }, status);
}

// Severity, status and outcome as words with a colour, never by colour alone.
import { h } from './dom.js';

export function severityBadge(severity) {
  return h('span', { className: `badge severity-${String(severity).toLowerCase()}` }, severity);
}

export function statusBadge(status) {
  return h('span', { className: `badge status-${String(status).toLowerCase()}`, 'data-testid': 'status' }, status);
}

/**
 * How a completed workflow came out, apart from its status: APPROVED when every step passed (final
 * result true), REJECTED when a step or a signal said no (false). Null for any other status.
 */
export function outcomeBadge(status, finalResult) {
  if (status !== 'COMPLETED' || typeof finalResult !== 'boolean') return null;
  const outcome = finalResult ? 'APPROVED' : 'REJECTED';
  return h('span', { className: `badge outcome-${outcome.toLowerCase()}`, 'data-testid': 'outcome' }, outcome);
}

// How a shadow rollout's copies compared with the stable version's answers: the counts with the
// agreement as a percentage, and the newest disagreements and errors, the stable and the shadow
// result side by side (the context only when the rollout captures contexts).
import { h } from './dom.js';
import { errorMessageWithoutCode, formatPercent, formatTime } from './format.js';

const COUNTS = [
  ['compared', 'Compared'],
  ['agreed', 'Agreed'],
  ['disagreed', 'Disagreed'],
  ['errors', 'Errors (shadow only)'],
  ['skipped', 'Skipped'],
];

/** One side of a comparison: the value as JSON, or the error's code and message. */
function sideResult(side) {
  if (!side) return h('span', { className: 'muted' }, '—');
  if (side.ok) return h('code', { className: 'result-value' }, JSON.stringify(side.value) ?? 'null');
  return h('span', { className: 'result-error' }, h('code', {}, side.code), ' ', errorMessageWithoutCode(side.code, side.error));
}

function contextCell(sample) {
  if (!Object.hasOwn(sample, 'context')) return h('span', { className: 'muted' }, 'not captured');
  return h('details', { className: 'payload' }, h('summary', {}, 'Context'), h('pre', {}, JSON.stringify(sample.context, null, 2)));
}

function disagreementRow(sample) {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'At' }, h('time', { datetime: sample.at }, formatTime(sample.at))),
    h('td', { 'data-label': 'Rule' }, sample.policyFunction),
    h('td', { 'data-label': 'Stable result', className: 'side-stable' }, sideResult(sample.stable)),
    h('td', { 'data-label': 'Shadow result', className: 'side-shadow' }, sideResult(sample.shadow)),
    h('td', { 'data-label': 'Context hash' }, h('code', { className: 'context-hash' }, sample.contextHash)),
    h('td', { 'data-label': 'Context' }, contextCell(sample)),
  );
}

export function shadowReportView(shadow, { captureContexts }) {
  const counts = shadow?.counts ?? { compared: 0, agreed: 0, disagreed: 0, errors: 0, skipped: 0 };
  const samples = shadow?.disagreements ?? [];
  const agreement = counts.compared === 0 ? null : counts.agreed / counts.compared;
  return h(
    'div',
    { className: 'shadow-report' },
    h('h3', {}, 'Shadow comparisons'),
    h(
      'dl',
      { className: 'facts counts' },
      COUNTS.map(([key, label]) => h('div', {}, h('dt', {}, label), h('dd', { 'data-testid': `shadow-${key}` }, counts[key].toLocaleString('en-US')))),
      h('div', {}, h('dt', {}, 'Agreement'), h('dd', { 'data-testid': 'shadow-agreement' }, agreement === null ? '— (nothing compared yet)' : formatPercent(agreement))),
    ),
    h('p', { className: 'help' }, 'Agreement: the copies whose result (value, or error code) equals the stable version\'s, of those compared. Skipped copies were not run (too many pending).'),
    h('h3', {}, 'Newest disagreements and errors'),
    samples.length === 0
      ? h('p', { className: 'empty' }, 'None so far.')
      : h(
          'table',
          { className: 'data-table disagreement-table' },
          h('caption', { className: 'visually-hidden' }, 'Disagreements and errors of the shadow version, newest first'),
          h('thead', {}, h('tr', {}, ['At', 'Rule', 'Stable result', 'Shadow result', 'Context hash', 'Context'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, samples.map(disagreementRow)),
        ),
    samples.length > 0 && !captureContexts && h('p', { className: 'help' }, 'This rollout does not capture contexts: the hash tells equal contexts apart without showing them.'),
  );
}

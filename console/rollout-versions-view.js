// The stable and the rolled-out version side by side since the rollout started (the rollout's
// `versions`, from the rollups): evaluations, failures, failure rate and mean time.
import { h } from './dom.js';
import { formatMs, formatPercent } from './format.js';

const ROLE_LABELS = { stable: 'stable', rollout: 'rolled out' };

export function rolloutVersionsView(rollout) {
  const label = (one) => (one.role === 'rollout' ? `${ROLE_LABELS.rollout} (${rollout.mode})` : ROLE_LABELS.stable);
  return h(
    'table',
    { className: 'data-table rollout-versions' },
    h('caption', {}, 'Since the rollout started'),
    h('thead', {}, h('tr', {}, ['Version', 'Role', 'Evaluations', 'Failures', 'Failure rate', 'Mean time'].map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      rollout.versions.map((one) =>
        h(
          'tr',
          { 'data-role': one.role },
          h('td', { 'data-label': 'Version' }, `version ${one.version}`),
          h('td', { 'data-label': 'Role' }, label(one)),
          h('td', { 'data-label': 'Evaluations' }, one.evaluations.toLocaleString('en-US')),
          h('td', { 'data-label': 'Failures' }, one.failures.toLocaleString('en-US')),
          h('td', { 'data-label': 'Failure rate' }, formatPercent(one.failureRate)),
          h('td', { 'data-label': 'Mean time' }, formatMs(one.meanTimeMs)),
        ),
      ),
    ),
  );
}

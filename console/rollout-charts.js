// A canary's traffic over time: the stable and the canary version's evaluations, failure rate and
// mean time per step, from the rollout's start to its end (or now), charted by the anomaly pages'
// chart from GET /api/v1/audit/rollups (one policy function at a time; role ADMIN).
import { chartWindow } from './chart-window.js';
import { h, replaceChildren } from './dom.js';
import { formatTime } from './format.js';
import { rollupCharts } from './rollup-chart.js';

/** At least this much is charted: a rollout of a few minutes would be a point or two, and the stable version's traffic before it is the comparison. */
const SHORTEST_WINDOW_MS = 15 * 60_000;

/** Both versions' series over one window: the endpoint is asked per version, so no other version crowds them out. */
async function readSeries(api, rollout, policyFunction) {
  // The window the anomaly pages choose (steps of a minute, hour or day), from the rollout's start (or earlier, see above) to its end or now.
  const end = rollout.endedAt ? new Date(rollout.endedAt) : new Date();
  const start = new Date(Math.min(Date.parse(rollout.startedAt), end.getTime() - SHORTEST_WINDOW_MS)).toISOString();
  const { window } = chartWindow({ metrics: { windowStart: start } }, 0, end);
  const query = { policyModule: rollout.policyModule, policyFunction, ...window };
  const answers = await Promise.all([rollout.stableVersion, rollout.version].map((version) => api.rollups({ ...query, version })));
  return { window, answer: { ...answers[0], series: answers.flatMap((one) => one.series) } };
}

/** `functions`: the rolled-out version's rule names; the first is charted until another is chosen. */
export function rolloutCharts({ api, session, rollout, functions }) {
  const section = h('div', { className: 'rollout-charts' }, h('h3', {}, 'Traffic over time'));
  if (!session.can('ADMIN')) {
    section.append(h('p', { className: 'help' }, `The charts read the rollups, which need role ADMIN (yours is ${session.role}); the table above has the same totals.`));
    return { element: section, dispose: () => {} };
  }
  if (functions.length === 0) {
    section.append(h('p', { className: 'empty' }, 'The version defines no rule to chart.'));
    return { element: section, dispose: () => {} };
  }
  const body = h('div', { 'aria-busy': 'true' });
  let charts = null;
  let latest = 0;
  const show = async (policyFunction) => {
    const choice = ++latest;
    charts?.dispose();
    charts = null;
    body.setAttribute('aria-busy', 'true');
    replaceChildren(body, h('p', { className: 'loading' }, 'Loading the rollups…'));
    try {
      const { window, answer } = await readSeries(api, rollout, policyFunction);
      if (choice !== latest) return;
      charts = rollupCharts(answer, null);
      replaceChildren(
        body,
        h(
          'p',
          { className: 'help' },
          `${rollout.policyModule}.${policyFunction} from ${formatTime(answer.from)} to ${formatTime(answer.to)} per ${window.step} (the rollout started ${formatTime(rollout.startedAt)}): version ${rollout.stableVersion} (stable) and version ${rollout.version} (${rollout.mode}).`,
        ),
        charts.element,
      );
    } catch (failure) {
      if (choice === latest) replaceChildren(body, h('p', { className: 'form-error' }, `The rollups could not be read: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`));
    } finally {
      if (choice === latest) body.setAttribute('aria-busy', 'false');
    }
  };
  if (functions.length > 1) {
    section.append(
      h(
        'div',
        { className: 'field rule-choice' },
        h('label', { for: 'rollout-rule' }, 'Rule'),
        h('select', { id: 'rollout-rule', name: 'rule', onChange: (event) => void show(event.target.value) }, functions.map((name) => h('option', { value: name }, name))),
      ),
    );
  }
  section.append(body);
  void show(functions[0]);
  return { element: section, dispose: () => charts?.dispose() };
}

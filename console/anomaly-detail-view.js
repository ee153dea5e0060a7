// One anomaly: status and severity, the rule's metrics, the recommended actions, the rollups of
// its policy function charted against the baseline, and (for ADMIN) the triage actions.
import { anomalyActionsPanel } from './anomaly-actions-panel.js';
import { severityBadge, statusBadge } from './badges.js';
import { chartWindow } from './chart-window.js';
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatMetric, formatTime, humanize, withReadableTimes } from './format.js';
import { metricLabel } from './metric-labels.js';
import { rollupCharts } from './rollup-chart.js';
import { triagePanel } from './triage-panel.js';
import { lastVerificationText } from './verification-words.js';

const DEFAULT_BASELINE_DAYS = 7;

function facts(entries) {
  return h('dl', { className: 'facts' }, entries.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))));
}

async function chartSection(api, anomaly) {
  const section = h('section', { className: 'panel', 'aria-labelledby': 'traffic-title' }, h('h2', { id: 'traffic-title' }, 'Traffic of this policy function'));
  const body = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading the rollups…'));
  section.append(body);
  const drawn = (async () => {
    // The tenant's baseline length; the default when the settings cannot be read.
    const baselineDays = await api.settings().then((settings) => settings.effective?.baselineDays ?? DEFAULT_BASELINE_DAYS, () => DEFAULT_BASELINE_DAYS);
    const { window, baseline } = chartWindow(anomaly, baselineDays);
    const query = { policyModule: anomaly.policyModule, policyFunction: anomaly.policyFunction };
    const [windowAnswer, baselineAnswer] = await Promise.all([api.rollups({ ...query, ...window }), api.rollups({ ...query, ...baseline })]);
    const charts = rollupCharts(windowAnswer, baselineAnswer);
    replaceChildren(
      body,
      h('p', { className: 'help' }, `From ${formatTime(windowAnswer.from)} to ${formatTime(windowAnswer.to)} per ${window.step}; dashed: each version's mean over the ${baselineDays} days before.`),
      charts.element,
    );
    body.setAttribute('aria-busy', 'false');
    return charts;
  })();
  drawn.catch((failure) => {
    body.setAttribute('aria-busy', 'false');
    replaceChildren(body, h('p', { className: 'form-error' }, `The rollups could not be read: ${failure.message}`));
  });
  return { section, drawn };
}

export function anomalyDetailView({ api, client, session, id }) {
  const content = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading the anomaly…'));
  const title = h('h1', { id: 'page-title', tabindex: '-1' }, 'Anomaly');
  const view = h('article', { 'aria-labelledby': 'page-title' }, h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/anomalies' }, 'All anomalies')), title, content);

  let charts = null;
  const show = (anomaly, triageMessage) => {
    title.textContent = `${humanize(anomaly.type)}: ${anomaly.policyModule}.${anomaly.policyFunction} @${anomaly.versionId.split('@').pop()}`;
    const triage = session.can('ADMIN') ? triagePanel({ api, anomaly, onChanged: (next, text) => show(next, text) }) : null;
    if (triage && triageMessage) triage.message.textContent = triageMessage;
    const actions = anomalyActionsPanel({ client, anomaly, onVerify: triage?.verify ?? null });
    const metrics = Object.entries(anomaly.metrics ?? {});
    replaceChildren(
      content,
      h('p', { className: 'summary-line' }, withReadableTimes(anomaly.summary)),
      facts([
        ['Status', statusBadge(anomaly.status)],
        ['Severity', severityBadge(anomaly.severity)],
        ['Version', anomaly.versionId],
        ['Detected', formatTime(anomaly.detectedAt)],
        ['Last seen', formatTime(anomaly.lastSeenAt)],
        ['Status changed', formatTime(anomaly.statusChangedAt)],
        ['Last verification', lastVerificationText(anomaly.lastVerification)],
      ]),
      actions,
      triage?.element,
      chartsSection,
      h('section', { className: 'panel', 'aria-labelledby': 'metrics-title' }, h('h2', { id: 'metrics-title' }, 'Metrics'), metrics.length ? facts(metrics.map(([name, value]) => [metricLabel(name).label, formatMetric(name, value)])) : h('p', {}, 'None recorded.')),
    );
    content.setAttribute('aria-busy', 'false');
  };

  let chartsSection = null;
  api.detail(id).then(
    async (anomaly) => {
      // The charts are read once per visit; a status change redraws the rest around them.
      const loading = await chartSection(api, anomaly);
      chartsSection = loading.section;
      show(anomaly);
      charts = await loading.drawn.catch(() => null);
    },
    (failure) => {
      content.setAttribute('aria-busy', 'false');
      title.textContent = 'Anomaly';
      replaceChildren(content, failureNotice(failure, session));
    },
  );
  return { element: view, dispose: () => charts?.dispose() };
}

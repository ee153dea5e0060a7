// A module's rollout on its page: the running one, or the last one that ended. Its terms (mode,
// share, sticky key), status, why and by whom it ended; for a shadow how the copies compared; the
// stable and the rolled-out version's figures side by side, and for a canary their traffic charted
// over time. ADMIN promotes or aborts a running one after a confirmation; the panel then shows the
// rollout as the server answered it.
import { statusBadge } from './badges.js';
import { announce, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime, humanize } from './format.js';
import { rolloutOrNull } from './policy-api.js';
import { rolloutCharts } from './rollout-charts.js';
import { confirmEndRollout } from './rollout-end-dialog.js';
import { rolloutVersionsView } from './rollout-versions-view.js';
import { anomalyHref } from './routes.js';
import { shadowReportView } from './shadow-report-view.js';

function facts(entries) {
  return h('dl', { className: 'facts' }, entries.filter(Boolean).map(([term, value, testId]) => h('div', {}, h('dt', {}, term), h('dd', { 'data-testid': testId }, value))));
}

const at = (iso) => h('time', { datetime: iso }, formatTime(iso));

function termsOf(rollout) {
  const running = rollout.status === 'RUNNING';
  return facts([
    ['Status', statusBadge(rollout.status), 'rollout-status'],
    ['Mode', humanize(rollout.mode), 'rollout-mode'],
    ['Rolled out', `version ${rollout.version}`, 'rollout-version'],
    ['Stable', `version ${rollout.stableVersion}`, 'rollout-stable'],
    [rollout.mode === 'shadow' ? 'Copied' : 'Answered by the canary', `${rollout.percent} % of evaluations`, 'rollout-percent'],
    rollout.mode === 'canary' && ['Sticky key', rollout.stickyKey ? h('code', {}, rollout.stickyKey) : 'none (each evaluation drawn anew)', 'rollout-sticky-key'],
    rollout.mode === 'shadow' && ['Contexts', rollout.captureContexts ? 'captured with disagreements' : 'not captured (hashes only)', 'rollout-contexts'],
    ['Started', [at(rollout.startedAt), ` by ${rollout.startedBy}`], 'rollout-started'],
    !running && [rollout.status === 'PROMOTED' ? 'Promoted' : 'Aborted', [at(rollout.endedAt), rollout.endedBy ? ` by ${rollout.endedBy}` : ''], 'rollout-ended'],
    !running && ['Reason', rollout.reason ?? '—', 'rollout-reason'],
    rollout.anomalyId && ['Aborted for', h('a', { href: anomalyHref(rollout.anomalyId) }, 'the anomaly that stopped it'), 'rollout-anomaly'],
  ]);
}

/**
 * The panel's element (empty while the module never had a rollout) and a `dispose` for when the
 * page goes. `onEnded(rollout)` runs after a promote or an abort (the versions' statuses change).
 */
export function rolloutPanel({ api, session, policyModule, onEnded = () => {} }) {
  const element = h('div', { className: 'rollout-slot' });
  const mayEnd = session.can('ADMIN');
  let charts = null;
  let disposed = false;

  const show = async (rollout, outcome) => {
    charts?.dispose();
    charts = null;
    if (disposed) return;
    if (rollout === null) {
      replaceChildren(element);
      return;
    }
    const running = rollout.status === 'RUNNING';
    const message = h('p', { className: 'action-message', role: 'status', tabindex: '-1' }, outcome ?? '');
    const end = async (step) => {
      try {
        const answer = await confirmEndRollout({ api, rollout, step });
        if (answer === null) return;
        const text = answer.status === 'PROMOTED' ? `Promoted: version ${answer.version} is active.` : `Aborted: version ${answer.stableVersion} answers every evaluation again.`;
        announce(text);
        await show(answer, text);
        element.querySelector('.action-message')?.focus();
        onEnded(answer);
      } catch (failure) {
        message.className = 'action-message form-error';
        message.textContent = `The ${step} was refused: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
        message.focus();
      }
    };
    if (rollout.mode === 'canary') {
      const record = await api.version(policyModule, rollout.version).catch(() => ({ functions: [] }));
      if (disposed) return;
      charts = rolloutCharts({ api, session, rollout, functions: (record.functions ?? []).map((one) => one.name) });
    }
    replaceChildren(
      element,
      h(
        'section',
        { className: `panel rollout rollout-${rollout.status.toLowerCase()}`, 'aria-labelledby': 'rollout-title', 'data-testid': 'rollout-panel' },
        h('h2', { id: 'rollout-title' }, running ? `Rollout of version ${rollout.version} (${rollout.mode}, running)` : `Last rollout: version ${rollout.version} (${rollout.mode})`),
        message,
        termsOf(rollout),
        running &&
          mayEnd &&
          h(
            'div',
            { className: 'actions' },
            h('button', { type: 'button', className: 'primary', onClick: () => end('promote') }, `Promote version ${rollout.version}`),
            h('button', { type: 'button', className: 'secondary', onClick: () => end('abort') }, 'Abort the rollout'),
          ),
        rollout.mode === 'shadow' && shadowReportView(rollout.shadow, { captureContexts: rollout.captureContexts }),
        h('h3', {}, 'Versions'),
        rolloutVersionsView(rollout),
        charts?.element,
      ),
    );
  };

  rolloutOrNull(api, policyModule).then(
    (rollout) => show(rollout),
    (failure) => {
      if (!disposed) replaceChildren(element, h('section', { className: 'panel rollout', 'aria-label': 'Rollout' }, failureNotice(failure, session, 'rollouts are readable from role VIEWER up.')));
    },
  );
  return {
    element,
    dispose: () => {
      disposed = true;
      charts?.dispose();
    },
  };
}

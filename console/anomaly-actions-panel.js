// The recommended actions of an anomaly as steps with buttons (what the console can do: roll back,
// start a canary, verify) and links (the audit records, the module's versions). A step that
// changes something asks first (confirm-dialog.js). The API's own wording stays one click away.
import { anomalyActionPlan } from './anomaly-action-plan.js';
import { confirmAction } from './confirm-dialog.js';
import { announce, h, replaceChildren } from './dom.js';
import { withReadableTimes } from './format.js';
import { activeVersionOf, policyApi } from './policy-api.js';
import { policyModuleHref } from './policy-routes.js';
import { confirmRollback } from './rollback-dialog.js';

const DEFAULT_CANARY_PERCENT = 10;

/** A canary of `version`'s source as a new version, answering `percent` % of the evaluations. */
function confirmCanary({ policies, policyModule, version }) {
  const percent = h('input', { id: 'canary-percent', name: 'percent', type: 'number', min: 1, max: 100, step: 1, value: DEFAULT_CANARY_PERCENT, inputmode: 'numeric', required: true });
  return confirmAction({
    labelledBy: 'canary-title',
    describedBy: 'canary-consequence',
    content: [
      h('h2', { id: 'canary-title' }, `Start a canary of version ${version}?`),
      h(
        'p',
        { id: 'canary-consequence' },
        `The source of version ${version} is deployed again as a new version of ${policyModule}, which answers the share of evaluations below; the active version answers the rest until you promote or abort the rollout on the module's page. The deploy is recorded in the audit chain.`,
      ),
      h('div', { className: 'field' }, h('label', { for: 'canary-percent' }, 'Share in % (1 to 100)'), percent),
    ],
    fields: [percent],
    confirmLabel: 'Start the canary',
    busyLabel: 'Starting the canary…',
    act: async () => {
      const share = Number(percent.value);
      if (!Number.isInteger(share) || share < 1 || share > 100) throw new Error(`The share must be a whole number from 1 to 100 (got “${percent.value}”).`);
      const stored = await policies.source(policyModule, version);
      return policies.deploy({ source: stored.source, locale: stored.locale, rollout: { mode: 'canary', percent: share } });
    },
  });
}

/** `onVerify()` starts a verification (the triage panel's); null when the page offers none. */
export function anomalyActionsPanel({ client, anomaly, onVerify }) {
  const policies = policyApi(client);
  const steps = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Reading the module’s active version…'));
  const message = h('p', { className: 'action-message', role: 'status', 'aria-live': 'polite' });
  const panel = h(
    'section',
    { className: 'panel recommended-actions', 'aria-labelledby': 'actions-title' },
    h('h2', { id: 'actions-title' }, 'Recommended actions'),
    steps,
    message,
    (anomaly.recommendedActions ?? []).length > 0 &&
      h('details', { className: 'api-advice' }, h('summary', {}, 'The same advice for API callers'), h('ul', {}, anomaly.recommendedActions.map((text) => h('li', {}, withReadableTimes(text))))),
  );

  const said = (text, isError, link) => {
    message.className = isError ? 'action-message form-error' : 'action-message';
    replaceChildren(message, text, link ? [' ', link] : []);
    if (!isError) announce(text);
  };
  const moduleLink = () => h('a', { href: policyModuleHref(anomaly.policyModule) }, `Open ${anomaly.policyModule}`);

  const act = {
    rollback: async (action, activeVersion) => {
      const answer = await confirmRollback({ api: policies, policyModule: anomaly.policyModule, version: action.version, activeVersion });
      if (answer !== null) said(`Version ${action.version} of ${anomaly.policyModule} is now the active version.`, false, moduleLink());
      return answer !== null;
    },
    canary: async (action) => {
      const answer = await confirmCanary({ policies, policyModule: anomaly.policyModule, version: action.version });
      if (answer !== null) said(`Version ${answer.version} (the source of version ${action.version}) runs as a canary.`, false, moduleLink());
      return answer !== null;
    },
    verify: async () => {
      const confirmed = await confirmAction({
        labelledBy: 'verify-title',
        describedBy: 'verify-consequence',
        content: [
          h('h2', { id: 'verify-title' }, 'Verify this anomaly now?'),
          h('p', { id: 'verify-consequence' }, 'A job assesses the rule again on the latest window: the status is VERIFYING until it ends, then OPEN if it still happens or RESOLVED if not. The change is recorded in the audit chain.'),
        ],
        confirmLabel: 'Start the verification',
        busyLabel: 'Starting…',
        act: async () => true,
      });
      if (confirmed) await onVerify();
      return false;
    },
  };

  const draw = (activeVersion) => {
    const plan = anomalyActionPlan(anomaly, activeVersion).map((step) => ({ ...step, actions: step.actions.filter((action) => action.kind !== 'verify' || onVerify) }));
    const button = (action) =>
      h(
        'button',
        {
          type: 'button',
          className: action.kind === 'verify' ? 'primary' : 'secondary',
          onClick: async () => {
            try {
              // After a rollback or a canary the module changed: the steps are read again.
              if (await act[action.kind](action, activeVersion)) load();
            } catch (failure) {
              said(failure.code ? `${failure.code}: ${failure.message}` : failure.message, true);
            }
          },
        },
        action.label,
      );
    replaceChildren(
      steps,
      h(
        'ol',
        { className: 'action-steps' },
        plan.map((step) =>
          h('li', {}, h('p', {}, step.text), step.actions.length > 0 && h('div', { className: 'actions' }, step.actions.map((action) => (action.kind === 'link' ? h('a', { href: action.href, className: 'button-link' }, action.label) : button(action))))),
        ),
      ),
    );
    steps.setAttribute('aria-busy', 'false');
  };
  const load = () =>
    activeVersionOf(policies, anomaly.policyModule).then(draw, (failure) => {
      steps.setAttribute('aria-busy', 'false');
      replaceChildren(steps, h('p', { className: 'form-error' }, `The module’s active version could not be read: ${failure.message}`));
    });
  void load();
  return panel;
}

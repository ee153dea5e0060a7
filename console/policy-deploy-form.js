// Deploy a module version: its source and, optionally, its tests (the cases run in the engine
// before anything is stored), active or rolled out in the shadow or as a canary, sent as
// POST /api/v1/policies. The source comes from files read in the browser (File.text()), or from
// another page's editors (the playground) through `input`. MEMBER may start only a shadow; active
// and canary need ADMIN (the server checks it too).
import { formField, h, replaceChildren } from './dom.js';
import { deployedView, refusedDeployView } from './deploy-outcome-view.js';
import { POLICY_KEYWORDS } from './policy-keywords.js';

const DEFAULT_LOCALE = 'en-US';
const MODES = [
  { value: 'active', label: 'Active', help: 'answers every evaluation at once', role: 'ADMIN' },
  { value: 'shadow', label: 'Shadow', help: 'runs on copies of the active version\'s evaluations and answers nobody', role: 'MEMBER' },
  { value: 'canary', label: 'Canary', help: 'answers a share of the evaluations', role: 'ADMIN' },
];

/** The rollout the form asks for; undefined for an active deploy. */
function rolloutOf(mode, percentText, stickyKey, captureContexts) {
  if (mode === 'active') return undefined;
  const percent = percentText === '' ? undefined : Number(percentText);
  if (mode === 'shadow') return { mode, ...(percent !== undefined ? { percent } : {}), ...(captureContexts ? { captureContexts: true } : {}) };
  return { mode, percent, ...(stickyKey !== '' ? { stickyKey } : {}) };
}

/** Why the input cannot be sent: said under the form, with the focus on `control`. */
export class DeployInputProblem extends Error {
  constructor(message, control) {
    super(message);
    this.control = control;
  }
}

/** The form's own input: the module's files and the locale they are written in. */
function fileInput() {
  const sourceInput = h('input', { id: 'deploy-source', name: 'source', type: 'file', accept: '.policy,text/plain', required: true, 'aria-describedby': 'deploy-source-help' });
  const testsInput = h('input', { id: 'deploy-tests', name: 'tests', type: 'file', accept: '.json,application/json', 'aria-describedby': 'deploy-tests-help' });
  const locale = h(
    'select',
    { id: 'deploy-locale', name: 'locale', 'aria-describedby': 'deploy-locale-help' },
    Object.keys(POLICY_KEYWORDS).map((tag) => h('option', { value: tag, selected: tag === DEFAULT_LOCALE }, tag)),
  );
  const read = async (file, control) => {
    try {
      return await file.text();
    } catch (readError) {
      throw new DeployInputProblem(`The file could not be read: ${readError.message}`, control);
    }
  };
  return {
    fields: [
      formField('deploy-source', 'Source file (.policy)', sourceInput, 'The module\'s source; its first line names the module.'),
      formField('deploy-tests', 'Tests file (.tests.json, optional)', testsInput, 'Its cases run in the engine first: if one fails, nothing is stored and the failures are listed.'),
      formField('deploy-locale', 'Locale of the source', locale, 'The language the source is written in.'),
    ],
    /** `{source, locale, tests?}`, or a DeployInputProblem. */
    async read() {
      const sourceFile = sourceInput.files[0];
      if (!sourceFile) throw new DeployInputProblem('Choose the module\'s source file.', sourceInput);
      const source = await read(sourceFile, sourceInput);
      const testsFile = testsInput.files[0];
      if (!testsFile) return { source, locale: locale.value };
      const testsText = await read(testsFile, testsInput);
      try {
        return { source, locale: locale.value, tests: JSON.parse(testsText) };
      } catch (parseError) {
        throw new DeployInputProblem(`${testsFile.name} is not JSON: ${parseError.message}`, testsInput);
      }
    },
  };
}

/**
 * `onDeployed(deployed)` runs after a version was stored (the module list changes). `input`
 * replaces the file fields: `{fields, read()}`, `read` answering `{source, locale, tests?}` or
 * throwing a DeployInputProblem.
 */
export function policyDeployForm({ api, session, onDeployed = () => {}, input = fileInput(), title = 'Deploy a version' }) {
  const isAdmin = session.can('ADMIN');
  const firstMode = isAdmin ? 'active' : 'shadow';
  const radios = MODES.map((mode) =>
    h('input', { id: `deploy-mode-${mode.value}`, name: 'mode', type: 'radio', value: mode.value, checked: mode.value === firstMode, disabled: !session.can(mode.role) }),
  );
  const percent = h('input', { id: 'deploy-percent', name: 'percent', type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric', 'aria-describedby': 'deploy-percent-help' });
  const stickyKey = h('input', { id: 'deploy-sticky-key', name: 'stickyKey', type: 'text', maxlength: 256, pattern: '[^.]+(\\.[^.]+)*', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'deploy-sticky-key-help' });
  // Keeping other callers' contexts is an ADMIN's decision (the server checks it too).
  const capture = h('input', { id: 'deploy-capture', name: 'captureContexts', type: 'checkbox', disabled: !isAdmin });
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Deploy');
  const error = h('p', { className: 'form-error', role: 'alert' });
  const outcome = h('div', { className: 'deploy-result', 'aria-live': 'polite' });

  const percentHelp = h('p', { id: 'deploy-percent-help', className: 'help' });
  const percentField = h('div', { className: 'field' }, h('label', { for: 'deploy-percent' }, 'Share in %'), percent, percentHelp);
  const stickyField = formField('deploy-sticky-key', 'Sticky key', stickyKey, 'A dotted path into the context (e.g. applicant.id): the same value always gets the same version. Empty: drawn per evaluation.');
  const captureField = h('div', { className: 'field check' }, capture, h('label', { for: 'deploy-capture' }, `Keep the context of each disagreement (otherwise only its hash)${isAdmin ? '' : ' (ADMIN)'}`));

  const modeNow = () => radios.find((radio) => radio.checked)?.value ?? firstMode;
  const fitMode = () => {
    const mode = modeNow();
    percentField.hidden = mode === 'active';
    stickyField.hidden = mode !== 'canary';
    captureField.hidden = mode !== 'shadow';
    percent.required = mode === 'canary';
    percentHelp.textContent =
      mode === 'canary' ? 'Required: the share of evaluations the new version answers (1 to 100).' : 'Optional: the share of evaluations copied to the shadow (1 to 100; default 100).';
  };
  for (const radio of radios) radio.addEventListener('change', fitMode);
  fitMode();

  const form = h(
    'form',
    { className: 'deploy-form', 'aria-labelledby': 'deploy-title' },
    input.fields,
    h(
      'fieldset',
      { className: 'mode-choice' },
      h('legend', {}, 'Mode'),
      MODES.map((mode, index) =>
        h(
          'div',
          { className: 'choice' },
          radios[index],
          h('label', { for: `deploy-mode-${mode.value}` }, mode.label, h('span', { className: 'choice-help' }, ` — ${mode.help}${mode.role === 'ADMIN' ? ' (ADMIN)' : ''}`)),
        ),
      ),
      !isAdmin && h('p', { className: 'help' }, `Your role (${session.role}) may start a shadow rollout only; an active deploy or a canary needs ADMIN.`),
    ),
    percentField,
    stickyField,
    captureField,
    h('div', { className: 'actions' }, submit),
    error,
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    replaceChildren(outcome, h('p', { className: 'loading' }, 'Deploying…'));
    try {
      const { source, locale, tests } = await input.read();
      const rollout = rolloutOf(modeNow(), percent.value.trim(), stickyKey.value.trim(), capture.checked);
      const body = { source, locale, ...(tests !== undefined ? { tests } : {}), ...(rollout ? { rollout } : {}) };
      try {
        const deployed = await api.deploy(body);
        replaceChildren(outcome, deployedView(deployed, tests?.cases?.length ?? 0));
        onDeployed(deployed);
      } catch (failure) {
        replaceChildren(outcome, refusedDeployView(failure, session));
      }
    } catch (problem) {
      if (!(problem instanceof DeployInputProblem)) throw problem;
      replaceChildren(outcome);
      error.textContent = problem.message;
      problem.control?.focus();
    } finally {
      submit.disabled = false;
      form.setAttribute('aria-busy', 'false');
    }
  });

  return h(
    'section',
    { className: 'panel deploy', 'aria-labelledby': 'deploy-title' },
    h('h2', { id: 'deploy-title' }, title),
    form,
    outcome,
  );
}

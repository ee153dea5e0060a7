// The playground's tests: the content of the module's `<module>.tests.json` (the file `policy test`
// runs and a deploy carries), run in the engine through POST /api/v1/policies/check's `tests`,
// every case listed as passed or failed with what it expected and what it got.
import { showCallOutcome } from './call-outcome.js';
import { diagnosticsTable, testCasesTable } from './deploy-outcome-view.js';
import { formField, h } from './dom.js';
import { DeployInputProblem } from './policy-deploy-form.js';

function casesView(report) {
  if (!report.tests) {
    return h(
      'div',
      { className: 'tests-outcome', role: 'alert' },
      h('p', { className: 'outcome-title form-error' }, 'The module does not compile: no case ran.'),
      diagnosticsTable(report.diagnostics, 'What the compiler found'),
    );
  }
  const { passed, failed, cases } = report.tests;
  return h(
    'div',
    { className: 'tests-outcome' },
    h('p', { className: `outcome-title${failed > 0 ? ' form-error' : ''}`, 'data-testid': 'tests-summary' }, `${passed} passed, ${failed} failed.`),
    testCasesTable(cases, { caption: 'Test cases: outcome, expected and actual', withOutcome: true }),
  );
}

/** `source()` reads the module now. */
export function playgroundTestsPanel({ api, session, source, tests: initialTests }) {
  const testsArea = h('textarea', {
    id: 'playground-tests',
    name: 'tests',
    rows: 14,
    spellcheck: 'false',
    autocomplete: 'off',
    className: 'code-input',
    'aria-describedby': 'playground-tests-help playground-tests-error',
  });
  testsArea.value = initialTests;
  const error = h('p', { id: 'playground-tests-error', className: 'form-error', 'aria-live': 'polite' });
  const run = h('button', { type: 'button', className: 'primary' }, 'Run tests');
  const outcome = h('div', { className: 'tests-result', 'aria-live': 'polite' });

  /** The tests as JSON, undefined when the box is empty; a SyntaxError is said under the box. */
  const parsed = () => {
    error.textContent = '';
    testsArea.setAttribute('aria-invalid', 'false');
    if (testsArea.value.trim() === '') return undefined;
    try {
      return JSON.parse(testsArea.value);
    } catch (parseError) {
      error.textContent = `The tests are not JSON: ${parseError.message}`;
      testsArea.setAttribute('aria-invalid', 'true');
      throw parseError;
    }
  };

  run.addEventListener('click', async () => {
    let tests;
    try {
      tests = parsed();
    } catch {
      testsArea.focus();
      return;
    }
    if (tests === undefined) {
      error.textContent = 'Write the test cases first (an object with `cases`).';
      testsArea.focus();
      return;
    }
    await showCallOutcome({
      button: run,
      outcome,
      busyText: 'Running the tests…',
      call: () => api.check({ source: source(), tests }),
      view: casesView,
      session,
      forbiddenWhy: 'checking a module needs role MEMBER.',
    });
  });

  return {
    element: h(
      'section',
      { className: 'panel playground-tests', 'aria-labelledby': 'playground-tests-title' },
      h('h2', { id: 'playground-tests-title' }, 'Tests'),
      formField('playground-tests', 'Test cases (.tests.json)', testsArea, 'As in the module\'s tests file: the cases run in the engine; a deploy runs them too.'),
      error,
      h('div', { className: 'actions' }, run),
      outcome,
    ),
    /** The tests a deploy carries (undefined when the box is empty), or a DeployInputProblem when they are not JSON. */
    deployTests: () => {
      try {
        return parsed();
      } catch (parseError) {
        throw new DeployInputProblem(`The tests are not JSON: ${parseError.message}`, testsArea);
      }
    },
  };
}

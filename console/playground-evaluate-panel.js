// The playground's Evaluate panel: one function of the module (as the last check listed them), a
// JSON context checked against its parameters before anything is sent, and the answer of
// POST /api/v1/policies/evaluate-source?trace=true with its decision trace as a tree.
import { showCallOutcome } from './call-outcome.js';
import { contextProblems, contextTemplate } from './context-check.js';
import { diagnosticsTable } from './deploy-outcome-view.js';
import { formField, h, replaceChildren } from './dom.js';
import { traceTree } from './trace-tree.js';

const json = (value) => JSON.stringify(value, null, 2) ?? 'null';

function answerView(answer, functionName) {
  const outcome =
    answer.error === null
      ? h('div', { className: 'evaluation-ok' }, h('p', { className: 'outcome-title' }, 'Result'), h('pre', { className: 'result-json' }, json(answer.result)))
      : h(
          'div',
          { className: 'evaluation-failed' },
          h('p', { className: 'outcome-title form-error' }, `The evaluation failed${answer.code ? ` (${answer.code})` : ''}: ${answer.error}`),
          answer.diagnostics.length > 0 && diagnosticsTable(answer.diagnostics, 'What the evaluation reported'),
        );
  return [outcome, traceTree(answer.trace ?? [], functionName)];
}

/** `source()` and `locale()` read the module now; `update(report)` takes each new check's functions. */
export function playgroundEvaluatePanel({ api, session, source, locale, context: initialContext }) {
  let functions = [];
  const functionSelect = h('select', { id: 'playground-function', name: 'function', 'aria-describedby': 'playground-function-help' });
  const contextArea = h('textarea', {
    id: 'playground-context',
    name: 'context',
    rows: 6,
    spellcheck: 'false',
    autocomplete: 'off',
    className: 'code-input',
    'aria-describedby': 'playground-context-help playground-context-problems',
  });
  contextArea.value = initialContext;
  const problems = h('ul', { id: 'playground-context-problems', className: 'context-problems form-error', 'aria-live': 'polite' });
  const fill = h('button', { type: 'button', className: 'quiet' }, 'Fill in the parameters');
  const evaluate = h('button', { type: 'button', className: 'primary' }, 'Evaluate');
  const outcome = h('div', { className: 'evaluation-result', 'aria-live': 'polite' });

  const chosen = () => functions.find((fn) => fn.name === functionSelect.value) ?? null;
  /** Says what is wrong with the context inline; true when it can be sent. */
  const judge = () => {
    const fn = chosen();
    const found = fn ? contextProblems(contextArea.value, fn) : [];
    replaceChildren(problems, found.map((problem) => h('li', {}, problem)));
    contextArea.setAttribute('aria-invalid', String(found.length > 0));
    return fn !== null && found.length === 0;
  };
  contextArea.addEventListener('input', judge);
  functionSelect.addEventListener('change', judge);
  fill.addEventListener('click', () => {
    const fn = chosen();
    if (!fn) return;
    contextArea.value = contextTemplate(fn);
    judge();
    contextArea.focus();
  });

  evaluate.addEventListener('click', async () => {
    const fn = chosen();
    if (!fn) {
      replaceChildren(outcome, h('p', { className: 'form-error' }, 'The module has no function to evaluate yet: fix its errors first.'));
      return;
    }
    if (!judge()) {
      contextArea.focus();
      return;
    }
    await showCallOutcome({
      button: evaluate,
      outcome,
      busyText: 'Evaluating…',
      call: () => api.evaluateSource({ source: source(), functionName: fn.name, context: JSON.parse(contextArea.value), locale: locale() }),
      view: (answer) => answerView(answer, fn.name),
      session,
      forbiddenWhy: 'evaluating source needs role MEMBER.',
    });
  });

  return {
    element: h(
      'section',
      { className: 'panel playground-evaluate', 'aria-labelledby': 'playground-evaluate-title' },
      h('h2', { id: 'playground-evaluate-title' }, 'Evaluate'),
      formField('playground-function', 'Function', functionSelect, 'The rules of the module as last checked, with their parameters.'),
      formField('playground-context', 'Context (JSON)', contextArea, 'An object keyed by parameter name, or an array in parameter order. Checked here before it is sent.'),
      problems,
      h('div', { className: 'actions' }, fill, evaluate),
      outcome,
    ),
    /** Takes the functions of a new check (none while the module does not compile). */
    update(report) {
      const previous = functionSelect.value;
      functions = report.functions;
      replaceChildren(
        functionSelect,
        functions.length === 0
          ? h('option', { value: '' }, 'No function (the module does not compile)')
          : functions.map((fn) =>
              h('option', { value: fn.name, selected: fn.name === previous }, `${fn.name}(${fn.parameters.map((parameter) => `${parameter.name}: ${parameter.type}`).join(', ')}) → ${fn.returns}`),
            ),
      );
      judge();
    },
  };
}

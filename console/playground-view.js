// The policy playground (#/playground, MEMBER): write a module in an editor and see the compiler's
// diagnostics as you type (POST /api/v1/policies/check, nothing stored), show it in another locale
// through the service's formatter, run its tests, evaluate a function with a trace, and deploy it
// through the Policies page's deploy form (a MEMBER in the shadow; active or canary ADMIN).
// The module's locale is the one the check reads from its header, so the highlighting follows it.
import { confirmAction } from './confirm-dialog.js';
import { diagnosticsTable } from './deploy-outcome-view.js';
import { announce, formField, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { playgroundEvaluatePanel } from './playground-evaluate-panel.js';
import { playgroundTestsPanel } from './playground-tests-panel.js';
import { policyApi } from './policy-api.js';
import { policyDeployForm } from './policy-deploy-form.js';
import { policyEditor } from './policy-editor.js';
import { POLICY_KEYWORDS } from './policy-keywords.js';

const FIRST_LOCALE = 'en-US';
const FIRST_MODULE = `Module playground.example.

# The fee of one claim: large claims pay double.
Rule fee given amount as Int, produce Int:
  If amount is greater than 100:
    Return double(amount).
  Return amount.

# Twice the amount.
Rule double given x as Int, produce Int:
  Return x times 2.
`;
const FIRST_TESTS = `{
  "cases": [
    { "name": "small claims pay their amount", "rule": "fee", "context": { "amount": 40 }, "expect": 40 },
    { "name": "large claims pay double", "rule": "fee", "context": { "amount": 150 }, "expect": 300 }
  ]
}
`;
const FIRST_CONTEXT = '{ "amount": 150 }';

function countOf(diagnostics, severity) {
  const n = diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
  return n === 0 ? null : `${n} ${severity}${n === 1 ? '' : 's'}`;
}

/** Asks before the edited text is replaced by the module printed in `locale`; null when cancelled. */
function confirmShowIn(locale, act) {
  return confirmAction({
    labelledBy: 'show-in-title',
    describedBy: 'show-in-consequence',
    content: [
      h('h2', { id: 'show-in-title' }, `Show the module in ${locale}?`),
      h('p', { id: 'show-in-consequence' }, `The editor's text is replaced by the module as the service's formatter prints it in ${locale}: comments and layout of your edits are not kept. Ctrl+Z brings the text back.`),
    ],
    confirmLabel: `Show in ${locale}`,
    busyLabel: 'Formatting…',
    act,
  });
}

export function playgroundView({ client, session }) {
  const api = policyApi(client);
  let locale = FIRST_LOCALE;
  // What the editor held when it was filled: switching the locale asks first once it differs.
  let loadedText = FIRST_MODULE;
  const checkStatus = h('p', { id: 'playground-check-status', className: 'check-status', role: 'status' }, 'Checking…');
  const diagnosticsBox = h('div', { className: 'playground-diagnostics' });
  const localeNote = h('p', { id: 'playground-locale-help', className: 'help' });
  const localeSelect = h(
    'select',
    { id: 'playground-locale', name: 'locale', 'aria-describedby': 'playground-locale-help' },
    Object.keys(POLICY_KEYWORDS).map((tag) => h('option', { value: tag, selected: tag === locale }, tag)),
  );

  const useLocale = (tag) => {
    locale = tag;
    localeSelect.value = tag;
    localeNote.textContent = `The module is read as ${tag} (its header says so). Choose another locale to see it printed there.`;
    editor.setLocale(tag);
  };

  const testsPanel = playgroundTestsPanel({ api, session, source: () => editor.text(), tests: FIRST_TESTS });
  const evaluatePanel = playgroundEvaluatePanel({ api, session, source: () => editor.text(), locale: () => locale, context: FIRST_CONTEXT });
  const showReport = (report) => {
    if (report.locale !== locale && Object.hasOwn(POLICY_KEYWORDS, report.locale)) useLocale(report.locale);
    const counts = [countOf(report.diagnostics, 'error'), countOf(report.diagnostics, 'warning')].filter(Boolean);
    checkStatus.textContent = counts.length === 0 ? `No problems: ${report.module} compiles.` : `${counts.join(', ')}${report.ok ? '' : ': the module does not compile'}.`;
    checkStatus.className = `check-status${report.ok ? '' : ' form-error'}`;
    replaceChildren(diagnosticsBox, report.diagnostics.length > 0 && diagnosticsTable(report.diagnostics, 'What the compiler found'));
    evaluatePanel.update(report);
  };

  const editor = policyEditor({
    doc: FIRST_MODULE,
    locale,
    labelledBy: 'playground-source-label',
    describedBy: 'playground-source-help playground-check-status',
    check: async (source) => {
      try {
        const report = await api.check({ source });
        // An answer for a text since replaced is left to the next check.
        if (source === editor.text()) showReport(report);
        return report;
      } catch (failure) {
        checkStatus.textContent = '';
        replaceChildren(diagnosticsBox, failureNotice(failure, session, 'checking a module needs role MEMBER.'));
        return null;
      }
    },
  });
  useLocale(locale);

  const switchProblem = h('p', { className: 'form-error', 'aria-live': 'polite' });
  localeSelect.addEventListener('change', async () => {
    const wanted = localeSelect.value;
    switchProblem.textContent = '';
    const format = () => api.check({ source: editor.text(), showIn: wanted });
    let report;
    try {
      report = editor.text() === loadedText ? await format() : await confirmShowIn(wanted, format);
    } catch (failure) {
      localeSelect.value = locale;
      switchProblem.textContent = failure.code ? `${failure.code}: ${failure.message}` : failure.message;
      return;
    }
    if (report === null) {
      localeSelect.value = locale;
      localeSelect.focus();
      return;
    }
    if (!report.formatted) {
      localeSelect.value = locale;
      switchProblem.textContent = 'The module does not compile: fix its errors before showing it in another locale.';
      return;
    }
    loadedText = report.formatted.source;
    editor.setText(loadedText);
    useLocale(report.formatted.locale);
    announce(`The module is shown in ${report.formatted.locale}.`);
    localeSelect.focus();
  });

  const deployForm = policyDeployForm({
    api,
    session,
    title: 'Deploy this module',
    input: {
      fields: [h('p', { className: 'help deploy-input-note' }, 'Deploys the module in the editor, in its locale, with the test cases above (when there are any).')],
      read: async () => {
        const tests = testsPanel.deployTests();
        return { source: editor.text(), locale, ...(tests !== undefined ? { tests } : {}) };
      },
    },
  });

  const element = h(
    'section',
    { className: 'playground', 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Playground'),
    h('p', { className: 'intro' }, 'Write a module and try it: nothing is stored until you deploy it.'),
    h(
      'div',
      { className: 'playground-sources' },
      h(
        'section',
        { className: 'panel playground-module', 'aria-labelledby': 'playground-module-title' },
        h('h2', { id: 'playground-module-title' }, 'Module'),
        formField('playground-locale', 'Locale', localeSelect),
        localeNote,
        switchProblem,
        h('p', { id: 'playground-source-label', className: 'field-label' }, 'Source'),
        h(
          'p',
          { id: 'playground-source-help', className: 'help' },
          'Checked as you type. Tab leaves the editor; Ctrl+] and Ctrl+[ indent and dedent; Ctrl+Z undoes.',
        ),
        editor.element,
        checkStatus,
        diagnosticsBox,
      ),
      testsPanel.element,
    ),
    evaluatePanel.element,
    deployForm,
  );
  return { element, dispose: () => editor.destroy() };
}

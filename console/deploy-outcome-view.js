// What a deploy answered, under the deploy form: the new version (and the rollout it started), or
// the test cases that failed with what each expected and got, or the compiler's diagnostics, or
// the service's refusal in the console's error style.
import { h } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { errorMessageWithoutCode } from './format.js';
import { policyModuleHref } from './policy-routes.js';

const json = (value) => JSON.stringify(value) ?? 'null';

function rolloutSentence(rollout) {
  if (!rollout) return 'It is the active version: it answers every evaluation now.';
  if (rollout.mode === 'shadow') {
    return `Rolled out in the shadow: ${rollout.percent} % of version ${rollout.stableVersion}'s evaluations are copied to it and compared; it answers nobody until it is promoted.`;
  }
  const sticky = rollout.stickyKey ? `, the same version for the same value of ${rollout.stickyKey}` : '';
  return `Rolled out as a canary: it answers ${rollout.percent} % of evaluations${sticky}; version ${rollout.stableVersion} answers the rest.`;
}

/** A deploy's span (`{start: <offset>, line, column, …}`) or a check's (`{start: {line, column, offset}, end}`) as where it starts. */
function where(span) {
  const start = typeof span?.start === 'object' ? span.start : span;
  return start ? `line ${start.line}, column ${start.column}` : '—';
}

export function diagnosticsTable(diagnostics, caption) {
  return h(
    'table',
    { className: 'data-table diagnostics-table' },
    h('caption', { className: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ['Where', 'Code', 'Severity', 'Message'].map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      diagnostics.map((one) =>
        h(
          'tr',
          {},
          h('td', { 'data-label': 'Where' }, where(one.span)),
          h('td', { 'data-label': 'Code' }, h('code', {}, one.code)),
          h('td', { 'data-label': 'Severity' }, one.severity ?? '—'),
          h('td', { 'data-label': 'Message' }, one.message, one.help && h('span', { className: 'help-line' }, ` ${one.help}`)),
        ),
      ),
    ),
  );
}

/** A case's expectation or outcome (`{result}`, `{fields}`, `{error, message?}`) as one line. */
function caseSide(side) {
  if (side === null || typeof side !== 'object') return h('code', {}, json(side));
  if (Object.hasOwn(side, 'error')) {
    const message = errorMessageWithoutCode(side.error, side.message);
    return h('span', {}, 'error ', h('code', {}, side.error), message ? `: ${message}` : '');
  }
  if (Object.hasOwn(side, 'fields')) return h('span', {}, 'fields ', h('code', {}, json(side.fields)));
  return h('code', {}, json(side.result));
}

/** Whether a case passed: a check's cases say so; a deploy lists only the failed ones, each with its reason. */
function casePassed(one) {
  return typeof one.passed === 'boolean' ? one.passed : one.reason === undefined;
}

/**
 * Test cases with what each expected and what it got. `withOutcome` adds whether each passed (a
 * check lists every case; a deploy only the failed ones).
 */
export function testCasesTable(cases, { caption = 'Test cases that failed: expected and actual', withOutcome = false } = {}) {
  const titles = ['Case', 'Rule', ...(withOutcome ? ['Outcome'] : []), 'Expected', 'Actual', 'Why'];
  return h(
    'table',
    { className: 'data-table test-failures' },
    h('caption', { className: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, titles.map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      cases.map((one) =>
        h(
          'tr',
          { 'data-outcome': casePassed(one) ? 'passed' : 'failed' },
          h('td', { 'data-label': 'Case' }, one.name),
          h('td', { 'data-label': 'Rule' }, one.rule),
          withOutcome && h('td', { 'data-label': 'Outcome', className: casePassed(one) ? 'case-passed' : 'case-failed' }, casePassed(one) ? 'passed' : 'failed'),
          h('td', { 'data-label': 'Expected', className: 'case-expected' }, one.expected === undefined ? '—' : caseSide(one.expected)),
          h('td', { 'data-label': 'Actual', className: 'case-actual' }, one.actual === undefined ? '—' : caseSide(one.actual)),
          h('td', { 'data-label': 'Why' }, one.reason ?? ''),
        ),
      ),
    ),
  );
}

/** The outcome of a deploy that was stored. `testCount`: the cases sent with it (0 without a tests file). */
export function deployedView(deployed, testCount) {
  return h(
    'div',
    { className: 'deploy-outcome deploy-ok', 'data-testid': 'deploy-outcome' },
    h('p', { className: 'outcome-title' }, `Deployed ${deployed.policyModule} version ${deployed.version}.`),
    h('p', {}, rolloutSentence(deployed.rollout), testCount > 0 ? ` All ${testCount} test cases passed first.` : ''),
    h('p', {}, h('a', { href: policyModuleHref(deployed.policyModule) }, `Open ${deployed.policyModule}`)),
    (deployed.warnings ?? []).length > 0 && [h('p', {}, 'The compiler warns:'), diagnosticsTable(deployed.warnings, 'Warnings of the deployed version')],
  );
}

/** The outcome of a refused deploy: failing tests (422), compile errors (400) or another refusal. */
export function refusedDeployView(failure, session) {
  const body = failure.body ?? {};
  if (failure.status === 422 && Array.isArray(body.failures)) {
    return h(
      'div',
      { className: 'deploy-outcome deploy-refused', role: 'alert', 'data-testid': 'deploy-outcome' },
      h('p', { className: 'outcome-title form-error' }, `${body.failures.length === 1 ? '1 test case' : `${body.failures.length} test cases`} failed: nothing was stored.`),
      h('p', { className: 'detail' }, `${failure.code}: ${failure.message}`),
      testCasesTable(body.failures),
    );
  }
  if (failure.status === 400 && Array.isArray(body.diagnostics)) {
    return h(
      'div',
      { className: 'deploy-outcome deploy-refused', role: 'alert', 'data-testid': 'deploy-outcome' },
      h('p', { className: 'outcome-title form-error' }, 'The source does not compile: nothing was stored.'),
      h('p', { className: 'detail' }, `${failure.code}: ${failure.message}`),
      diagnosticsTable(body.diagnostics, 'What the compiler found'),
    );
  }
  return failureNotice(failure, session, 'an active deploy or a canary needs role ADMIN; MEMBER may start a shadow rollout.');
}

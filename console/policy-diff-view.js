// The line differences between two versions of a module: removed lines of the first, added lines
// of the second, marked by sign and word as well as by colour, each highlighted in its version's locale.
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { lineDiff, MAX_CELLS } from './line-diff.js';
import { versionOrNull, versionSource } from './policy-api.js';
import { highlightedLine } from './policy-highlight.js';
import { policyModuleHref } from './policy-routes.js';
import { versionCompareForm } from './version-compare-form.js';

const MARKS = { added: ['+', 'added'], removed: ['−', 'removed'], same: ['', 'unchanged'] };

function diffRow(line, oldLocale, newLocale) {
  const [sign, word] = MARKS[line.kind];
  return h(
    'tr',
    { className: `diff-${line.kind}`, 'data-kind': line.kind },
    h('td', { className: 'line-number' }, line.oldNumber ?? ''),
    h('td', { className: 'line-number' }, line.newNumber ?? ''),
    h('td', { className: 'diff-mark' }, h('span', { 'aria-hidden': 'true' }, sign), h('span', { className: 'visually-hidden' }, word)),
    h('td', { className: 'diff-text' }, highlightedLine(line.text, line.kind === 'removed' ? oldLocale : newLocale)),
  );
}

export function policyDiffView({ api, session, policyModule, from, to }) {
  const content = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading both versions…'));
  const title = h('h1', { id: 'page-title', tabindex: '-1' }, `${policyModule}: version ${from ?? '?'} to version ${to ?? '?'}`);
  const view = h(
    'article',
    { 'aria-labelledby': 'page-title' },
    h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: policyModuleHref(policyModule) }, `Versions of ${policyModule}`)),
    title,
    content,
  );

  (async () => {
    const [older, newer] = await Promise.all([from, to].map((version) => (version === null ? null : versionOrNull(api, policyModule, version))));
    if (!older || !newer) {
      replaceChildren(content, versionCompareForm(policyModule, from, to), h('p', { className: 'form-error', role: 'alert' }, 'Choose two versions of this module.'));
      return;
    }
    const [oldSource, newSource] = await Promise.all([versionSource(api, older), versionSource(api, newer)]);
    const { lines, tooLarge } = lineDiff(oldSource, newSource);
    const added = lines.filter((line) => line.kind === 'added').length;
    const removed = lines.filter((line) => line.kind === 'removed').length;
    const summary = tooLarge
      ? `The two versions differ in too many lines to compare here (more than ${MAX_CELLS.toLocaleString('en-US')} line pairs).`
      : added + removed === 0
        ? 'The two versions have the same source.'
        : `${added} ${added === 1 ? 'line' : 'lines'} added, ${removed} removed.`;
    replaceChildren(
      content,
      versionCompareForm(policyModule, from, to),
      h('p', { className: 'diff-summary', 'data-testid': 'diff-summary' }, summary),
      older.locale !== newer.locale && h('p', { className: 'help' }, `The versions are written in different locales (${older.locale}, ${newer.locale}), so most lines differ.`),
      !tooLarge &&
        h(
          'table',
          { className: 'diff' },
          h('caption', { className: 'visually-hidden' }, `Lines of version ${from} and version ${to}`),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, `v${from}`), h('th', { scope: 'col' }, `v${to}`), h('th', { scope: 'col' }, h('span', { className: 'visually-hidden' }, 'Change')), h('th', { scope: 'col' }, 'Line'))),
          h('tbody', {}, lines.map((line) => diffRow(line, older.locale, newer.locale))),
        ),
    );
  })()
    .catch((failure) => replaceChildren(content, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.')))
    .finally(() => content.setAttribute('aria-busy', 'false'));
  return view;
}

// One module's versions, oldest first and a page at a time, with status, locale, creation and who deployed it; a choice
// of two versions to compare; and for ADMIN a rollback of any version that is not active, after a
// confirmation. Above them the module's rollout, running or last ended (rollout-panel.js).
import { statusBadge } from './badges.js';
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { activeVersionOf, VERSION_PAGE_SIZE } from './policy-api.js';
import { policiesHref, policyModuleHref, policySourceHref } from './policy-routes.js';
import { confirmRollback } from './rollback-dialog.js';
import { rolloutPanel } from './rollout-panel.js';
import { versionCompareForm } from './version-compare-form.js';

/** The page's element and a `dispose` for when it goes (the rollout's charts). */
export function policyVersionsView({ api, session, policyModule, page = 0 }) {
  // A live region from the start, so the rollback's outcome is read out when it is written.
  const message = h('p', { className: 'action-message', role: 'status', tabindex: '-1' });
  const content = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading the versions…'));
  // A promote or an abort changes which version is active: the table is read again.
  const rollout = rolloutPanel({ api, session, policyModule, onEnded: () => void load() });
  const view = h(
    'article',
    { 'aria-labelledby': 'page-title' },
    h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: policiesHref() }, 'All policies')),
    h('h1', { id: 'page-title', tabindex: '-1' }, policyModule),
    message,
    rollout.element,
    content,
  );
  const mayRollBack = session.can('ADMIN');

  const rollBack = async (version, activeVersion) => {
    try {
      const answer = await confirmRollback({ api, policyModule, version, activeVersion });
      if (answer === null) return;
      const previous = answer.previousVersion === null ? '' : ` (was version ${answer.previousVersion})`;
      message.className = 'action-message';
      message.textContent = `Rolled back: version ${answer.version} is active${previous}.`;
    } catch (failure) {
      message.className = 'action-message form-error';
      message.textContent = `The rollback was refused: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
    }
    // The table as the server now has it; the focus goes to the outcome, since the row's button may be gone.
    await load();
    message.focus();
  };

  const versionRow = (one, activeVersion) =>
    h(
      'tr',
      { 'data-version': one.version },
      h('td', { 'data-label': 'Version' }, h('a', { href: policySourceHref(policyModule, one.version) }, `version ${one.version}`)),
      h('td', { 'data-label': 'Status' }, statusBadge(one.status)),
      h('td', { 'data-label': 'Locale' }, one.locale),
      h('td', { 'data-label': 'Created' }, h('time', { datetime: one.createdAt }, formatTime(one.createdAt))),
      h('td', { 'data-label': 'Deployed by' }, one.actorId ?? (one.builtin ? 'built-in library' : '—')),
      h('td', { 'data-label': 'Rules', className: 'rules' }, String(one.ruleCount)),
      mayRollBack &&
        h(
          'td',
          { 'data-label': 'Action' },
          one.status === 'ACTIVE'
            ? h('span', { className: 'help' }, 'active')
            : h('button', { type: 'button', className: 'secondary', onClick: () => rollBack(one.version, activeVersion) }, `Roll back to version ${one.version}`),
        ),
    );

  const load = () =>
    Promise.all([api.versions(policyModule, { page, size: VERSION_PAGE_SIZE }), activeVersionOf(api, policyModule)]).then(
      ([listed, activeVersion]) => {
        content.setAttribute('aria-busy', 'false');
        const versions = listed.content;
        const pages = Math.max(listed.totalPages, 1);
        const headings = ['Version', 'Status', 'Locale', 'Created', 'Deployed by', 'Rules', ...(mayRollBack ? ['Action'] : [])];
        replaceChildren(
          content,
          h(
            'table',
            { className: 'data-table version-table' },
            h('caption', { className: 'visually-hidden' }, `Versions of ${policyModule}, oldest first`),
            h('thead', {}, h('tr', {}, headings.map((title) => h('th', { scope: 'col' }, title)))),
            h('tbody', {}, versions.map((one) => versionRow(one, activeVersion))),
          ),
          pages > 1 &&
            h(
              'nav',
              { className: 'pager', 'aria-label': 'Pages' },
              h('button', { type: 'button', disabled: listed.page === 0, onClick: () => { window.location.hash = policyModuleHref(policyModule, listed.page - 1); } }, 'Older versions'),
              h('p', { 'aria-live': 'polite' }, `Page ${listed.page + 1} of ${pages} · ${listed.totalElements} versions`),
              h('button', { type: 'button', disabled: listed.page + 1 >= listed.totalPages, onClick: () => { window.location.hash = policyModuleHref(policyModule, listed.page + 1); } }, 'Newer versions'),
            ),
          versions.length >= 2 && versionCompareForm(policyModule, versions[versions.length - 2].version, versions[versions.length - 1].version),
        );
      },
      (failure) => {
        content.setAttribute('aria-busy', 'false');
        replaceChildren(content, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.'));
      },
    );
  void load();
  return { element: view, dispose: () => rollout.dispose() };
}

// The modules the tenant sees, built-in ones included, from the active policies a page at a time:
// each module's active version, its locale, and whether it is the built-in one. Below them, for
// MEMBER and up, the form that deploys a version from files (policy-deploy-form.js).
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { activeModulesOf, MODULE_LIST_PAGE_SIZE } from './policy-api.js';
import { policyDeployForm } from './policy-deploy-form.js';
import { policiesHref, policyModuleHref } from './policy-routes.js';

function moduleRow(entry) {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'Module' }, h('a', { href: policyModuleHref(entry.policyModule) }, entry.policyModule)),
    h('td', { 'data-label': 'Active version' }, `version ${entry.activeVersion}`),
    h('td', { 'data-label': 'Locale' }, entry.locale),
    h('td', { 'data-label': 'Built-in' }, entry.builtin ? 'yes (version 0)' : 'no'),
  );
}

export function policyListView({ api, session, page = 0 }) {
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading policies…'));
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Policies'),
    h('p', { className: 'help' }, 'The policy modules in use: the built-in library first, then the tenant\'s own. Open a module for all its versions, their source and the differences between them.'),
    results,
    // A deployed version may be a new module, or a new active version of one listed: the list is read again.
    session.can('MEMBER') && policyDeployForm({ api, session, onDeployed: () => void load() }),
  );
  const go = (to) => {
    window.location.hash = policiesHref(to);
  };
  const load = () => api.list({ status: 'ACTIVE', page, size: MODULE_LIST_PAGE_SIZE }).then(
    (listed) => {
      results.setAttribute('aria-busy', 'false');
      const modules = activeModulesOf(listed.content);
      if (modules.length === 0) {
        replaceChildren(results, h('p', { className: 'empty' }, listed.totalElements === 0 ? 'No policy modules yet.' : 'This page is past the end of the list.'));
        return;
      }
      const pages = Math.max(listed.totalPages, 1);
      replaceChildren(
        results,
        h(
          'table',
          { className: 'data-table policy-table' },
          h('caption', { className: 'visually-hidden' }, 'Policy modules and their active versions'),
          h('thead', {}, h('tr', {}, ['Module', 'Active version', 'Locale', 'Built-in'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, modules.map(moduleRow)),
        ),
        pages > 1 &&
          h(
            'nav',
            { className: 'pager', 'aria-label': 'Pages' },
            h('button', { type: 'button', disabled: listed.page === 0, onClick: () => go(listed.page - 1) }, 'Previous page'),
            h('p', { 'aria-live': 'polite' }, `Page ${listed.page + 1} of ${pages}`),
            h('button', { type: 'button', disabled: listed.page + 1 >= listed.totalPages, onClick: () => go(listed.page + 1) }, 'Next page'),
          ),
      );
    },
    (failure) => {
      results.setAttribute('aria-busy', 'false');
      replaceChildren(results, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.'));
    },
  );
  void load();
  return view;
}

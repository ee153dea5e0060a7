// The modules the tenant sees, built-in ones included: active version, number of versions, locale.
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { modulesOf } from './policy-api.js';
import { policyModuleHref } from './policy-routes.js';

function moduleRow(entry) {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'Module' }, h('a', { href: policyModuleHref(entry.policyModule) }, entry.policyModule)),
    h('td', { 'data-label': 'Active version' }, entry.activeVersion === null ? 'none' : `version ${entry.activeVersion}`),
    h('td', { 'data-label': 'Versions' }, String(entry.versionCount)),
    h('td', { 'data-label': 'Locale' }, entry.locale ?? '—'),
    h('td', { 'data-label': 'Built-in' }, entry.builtin ? 'yes (version 0)' : 'no'),
  );
}

export function policyListView({ api, session }) {
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading policies…'));
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Policies'),
    h('p', { className: 'help' }, 'The tenant\'s policy modules and the built-in library. Open a module for its versions, their source and the differences between them.'),
    results,
  );
  api.list().then(
    (policies) => {
      results.setAttribute('aria-busy', 'false');
      const modules = modulesOf(policies);
      if (modules.length === 0) {
        replaceChildren(results, h('p', { className: 'empty' }, 'No policy modules yet.'));
        return;
      }
      replaceChildren(
        results,
        h(
          'table',
          { className: 'data-table policy-table' },
          h('caption', { className: 'visually-hidden' }, 'Policy modules by name'),
          h('thead', {}, h('tr', {}, ['Module', 'Active version', 'Versions', 'Locale', 'Built-in'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, modules.map(moduleRow)),
        ),
      );
    },
    (failure) => {
      results.setAttribute('aria-busy', 'false');
      replaceChildren(results, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.'));
    },
  );
  return view;
}

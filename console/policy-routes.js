// The Policies pages in the URL's fragment: #/policies?page=<n> (the modules), #/policies/<module>?page=<n> (its
// versions), #/policies/<module>/<version> (a version's source) and
// #/policies/<module>/diff?from=<version>&to=<version>.

/** The route of a Policies page for a fragment's path and query, or null for another page. */
/** The `page` of a list's fragment query; 0 when absent or malformed. */
function pageOf(search) {
  const page = new URLSearchParams(search).get('page') ?? '';
  return /^\d{1,7}$/.test(page) ? Number(page) : 0;
}

export function policyRouteOf(path, search) {
  if (path === '/policies') return { name: 'policies', page: pageOf(search) };
  const match = /^\/policies\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (!match) return null;
  const policyModule = decodeURIComponent(match[1]);
  if (match[2] === undefined) return { name: 'policy-versions', policyModule, page: pageOf(search) };
  if (match[2] === 'diff') {
    const params = new URLSearchParams(search);
    const version = (name) => (/^\d+$/.test(params.get(name) ?? '') ? Number(params.get(name)) : null);
    return { name: 'policy-diff', policyModule, from: version('from'), to: version('to') };
  }
  if (/^\d+$/.test(match[2])) return { name: 'policy-source', policyModule, version: Number(match[2]) };
  return null;
}

export const policiesHref = (page = 0) => (page === 0 ? '#/policies' : `#/policies?page=${page}`);
export const policyModuleHref = (policyModule, page = 0) => `#/policies/${encodeURIComponent(policyModule)}${page === 0 ? '' : `?page=${page}`}`;
export const policySourceHref = (policyModule, version) => `${policyModuleHref(policyModule)}/${version}`;
export const policyDiffHref = (policyModule, from, to) => `${policyModuleHref(policyModule)}/diff?from=${from}&to=${to}`;

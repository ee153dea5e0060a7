// The Workflows pages in the URL's fragment: #/workflows?status&module&workflow&after&before&size&page
// (the list, its filters and page) and #/workflows/<id> (one workflow).

/** The route of a Workflows page for a fragment's path and query, or null for another page. */
export function workflowRouteOf(path, search = '') {
  if (path === '/workflows') return { name: 'workflows', params: new URLSearchParams(search) };
  const match = /^\/workflows\/([^/]+)$/.exec(path);
  return match ? { name: 'workflow', id: decodeURIComponent(match[1]) } : null;
}

export function workflowsHref(params = {}) {
  const search = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== undefined && value !== '' && value !== null)).toString();
  return `#/workflows${search ? `?${search}` : ''}`;
}

export const workflowHref = (id) => `#/workflows/${encodeURIComponent(id)}`;

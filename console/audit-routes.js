// The Audit chain page in the URL's fragment: #/audit?type&module&function&from&to&size&before&newer
// (filters, page size, the `before` of this page and those of the newer pages, for going back).

/** The route of the Audit chain page for a fragment's path and query, or null for another page. */
export function auditRouteOf(path, search) {
  return path === '/audit' ? { name: 'audit', params: new URLSearchParams(search) } : null;
}

export function auditHref(params) {
  const search = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== undefined && value !== '' && value !== null)).toString();
  return `#/audit${search ? `?${search}` : ''}`;
}

// The Workflows pages in the URL's fragment: #/workflows (open one by id) and #/workflows/<id>.

/** The route of a Workflows page for a fragment's path, or null for another page. */
export function workflowRouteOf(path) {
  if (path === '/workflows') return { name: 'workflows' };
  const match = /^\/workflows\/([^/]+)$/.exec(path);
  return match ? { name: 'workflow', id: decodeURIComponent(match[1]) } : null;
}

export const workflowsHref = () => '#/workflows';
export const workflowHref = (id) => `#/workflows/${encodeURIComponent(id)}`;

// The Webhooks pages in the URL's fragment: #/webhooks (the subscriptions, ?page=) and
// #/webhooks/<id> (one subscription's recent deliveries, ?page=).

const pageOf = (search) => {
  const page = new URLSearchParams(search).get('page') ?? '';
  return /^\d{1,6}$/.test(page) ? Number(page) : 0;
};

/** The route of a Webhooks page for a fragment's path, or null for another page. */
export function webhookRouteOf(path, search) {
  if (path === '/webhooks') return { name: 'webhooks', page: pageOf(search) };
  const match = /^\/webhooks\/([^/]+)$/.exec(path);
  return match ? { name: 'webhook', id: decodeURIComponent(match[1]), page: pageOf(search) } : null;
}

export const webhooksHref = (page = 0) => `#/webhooks${page > 0 ? `?page=${page}` : ''}`;
export const webhookHref = (id, page = 0) => `#/webhooks/${encodeURIComponent(id)}${page > 0 ? `?page=${page}` : ''}`;

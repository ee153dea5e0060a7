/** Audit list queries: how many records one request returns, and paging by `before` (a seq). */
export const AUDIT_LIST_DEFAULT_LIMIT = 1000;
export const AUDIT_LIST_MAX_LIMIT = 10_000;

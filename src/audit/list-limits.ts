/** Audit list queries: how many records one request returns, and paging by `before` (a seq). */
export const AUDIT_LIST_DEFAULT_LIMIT = 1000;
export const AUDIT_LIST_MAX_LIMIT = 1000;

/** Records a list reads, and writes out, at a time: other requests are answered between slices. */
export const AUDIT_LIST_SLICE = 250;

/** Lists of one tenant read and written at once per process; the others wait their turn. */
export const AUDIT_LIST_TURNS_PER_TENANT = 2;

/** A list spends one rate-limit point per this many records it asks for (its `limit`). */
export const AUDIT_LIST_RECORDS_PER_POINT = 100;

/** The rate-limit points of a list asking for `limit` records: at least one. */
export function auditListCost(limit: number): number {
  return Math.max(1, Math.ceil(limit / AUDIT_LIST_RECORDS_PER_POINT));
}

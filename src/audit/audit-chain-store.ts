/**
 * What reading the audit chain needs from storage: one hash chain per tenant, never changed. Records
 * enter it only through the tenant's linker (AuditLinkRepository.link in audit-link-store.ts). The
 * store's adapters implement it; the contract suite in test/contracts runs the same cases against each.
 */

/** `previousHash` of a tenant's first audit record (seq 1). */
export const GENESIS_PREVIOUS_HASH = '0'.repeat(64);

/** One link of a tenant's audit hash chain, exactly as stored and returned by the API. */
export interface AuditRecord {
  id: string;
  seq: number;
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  /** ISO 8601 with milliseconds, UTC (`2026-01-02T03:04:05.678Z`). */
  occurredAt: string;
  payload: Record<string, unknown>;
  hash: string;
  previousHash: string;
}

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface AuditQuery {
  eventType?: string;
  policyModule?: string;
  policyFunction?: string;
  /** Inclusive ISO 8601 bounds on occurredAt (any offset; compared as instants). */
  from?: string;
  to?: string;
  /** Only records with seq < before (paging). */
  before?: number;
  /** Positive integer; the caller applies its own ceiling. */
  limit: number;
}

export interface AuditChainRepository {
  head(tenantId: string): Promise<ChainHead | null>;
  /** Newest first (seq descending). */
  list(tenantId: string, query: AuditQuery): Promise<AuditRecord[]>;
  /** Ascending by seq from `fromSeq` (inclusive), read in pages of `pageSize`: bounded memory. */
  scan(tenantId: string, fromSeq: number, pageSize: number): AsyncIterable<AuditRecord>;
  /** The tenant's record with this id (an indexed lookup), or null. */
  findById(tenantId: string, id: string): Promise<AuditRecord | null>;
}

/**
 * What the audit chain needs from storage: one hash chain per tenant, appended in batches and never
 * changed. The store's adapters implement it; the contract suite in test/contracts runs the same
 * cases against each.
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
  /**
   * Inserts records with consecutive seqs in order and stops at the first seq that already exists
   * (another writer won). Returns how many were inserted; fewer than given means a conflict and the
   * caller must re-read the head and rebuild the rest. Never overwrites.
   * Throws AuditBatchError when the records do not extend the stored chain (wrong seq or
   * previousHash for the first record, or records not linked to each other).
   */
  insertBatch(tenantId: string, records: readonly AuditRecord[]): Promise<number>;
  /** Newest first (seq descending). */
  list(tenantId: string, query: AuditQuery): Promise<AuditRecord[]>;
  /** Ascending by seq from `fromSeq` (inclusive), read in pages of `pageSize`: bounded memory. */
  scan(tenantId: string, fromSeq: number, pageSize: number): AsyncIterable<AuditRecord>;
  /** The tenant's record with this id (an indexed lookup), or null. */
  findById(tenantId: string, id: string): Promise<AuditRecord | null>;
}

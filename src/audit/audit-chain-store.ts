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

/**
 * A record as the store holds it, its payload the stored JSON text (not yet read). The types are the
 * schema's; a store edited by hand may hold anything, so a reader of these checks what it relies on.
 */
export type StoredAuditRecord = Omit<AuditRecord, 'payload'> & { payload: string };

/**
 * Where a thread may open a reader of the store's chain of its own (structured-clonable; what the
 * fields hold is the store's business): so a verification reads its pages where it hashes them.
 */
export interface ChainPageSource {
  readonly store: string;
  readonly location: string;
}

/** A thread's own reader of a chain's stored pages (openChainPageReader in the store). */
export interface ChainPageReader {
  /** At most `limit` of the tenant's records from `fromSeq` (inclusive) on, ascending by seq, as stored. */
  page(tenantId: string, fromSeq: number, limit: number): StoredAuditRecord[];
  /** The record as `scan` returns it; AuditRecordCorruptError when its payload cannot be read. */
  record(tenantId: string, stored: StoredAuditRecord): AuditRecord;
  close(): void;
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
  /**
   * At most `limit` of the tenant's records of `eventType` with seq > `afterSeq`, ascending by seq,
   * through the (tenant, event type, seq) index: how a follower of some event types reads on from
   * where it stopped, however many records of other types lie between.
   */
  listTypeAfter(tenantId: string, eventType: string, afterSeq: number, limit: number): Promise<AuditRecord[]>;
  /** Ascending by seq from `fromSeq` (inclusive), read in pages of `pageSize`: bounded memory. */
  scan(tenantId: string, fromSeq: number, pageSize: number): AsyncIterable<AuditRecord>;
  /** The tenant's record with this id (an indexed lookup), or null. */
  findById(tenantId: string, id: string): Promise<AuditRecord | null>;
  /** Where threads may read this chain themselves, or null when only `scan` reads it (in this process). */
  pageSource(): ChainPageSource | null;
}

/**
 * Repository interfaces, one per use case. Adapters: sqlite/ (embedded default) and mongo/.
 * Every method takes the tenant id explicitly: a query without a tenant is a bug.
 * The contract suite in test/contracts runs the same cases against both adapters.
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
}

export interface Tenant {
  tenantId: string;
  createdAt: string;
}

export interface SigningSecret {
  /** 1, 2, … in order of creation. */
  version: number;
  secret: string;
  createdAt: string;
}

export interface TenantRepository {
  /** Returns false when the tenant already exists (nothing changes). */
  create(tenant: Tenant, firstSecret: SigningSecret): Promise<boolean>;
  get(tenantId: string): Promise<Tenant | null>;
  /**
   * Adds a secret; only the two newest (highest versions) stay valid. Returns false for an unknown
   * tenant or when the tenant already has a secret with that version (nothing changes).
   */
  addSecret(tenantId: string, secret: SigningSecret): Promise<boolean>;
  /** The valid secrets, newest first (at most two). */
  activeSecrets(tenantId: string): Promise<SigningSecret[]>;
}

export interface IdempotencyRecord {
  key: string;
  /** Hash of method, path and body: a reused key with a different request is refused. */
  requestHash: string;
  status: number;
  body: unknown;
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyRepository {
  /** Expired records are treated as absent (TTL indexes are not enforced by every backend). */
  get(tenantId: string, key: string, now: Date): Promise<IdempotencyRecord | null>;
  /** First writer wins: returns false when an unexpired record with the key already exists. */
  putIfAbsent(tenantId: string, record: IdempotencyRecord, now: Date): Promise<boolean>;
}

/** Everything a process needs from its store; one instance per process. */
export interface Store {
  readonly kind: 'sqlite' | 'mongo';
  readonly audit: AuditChainRepository;
  readonly tenants: TenantRepository;
  readonly idempotency: IdempotencyRepository;
  /** Resolves when the backend answers a trivial query (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

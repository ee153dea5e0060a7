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
  readonly policies: PolicyRepository;
  readonly rollups: RollupRepository;
  /** Resolves when the backend answers a trivial query (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A rule of a deployed module, as the compiler reports it. */
export interface PolicyFunctionSignature {
  name: string;
  params: { name: string; type: string }[];
  returnType: string;
}

/** One deployed version of a tenant's policy module. Stored once, never changed. */
export interface PolicyModuleVersion {
  policyModule: string;
  /** 1, 2, … per (tenant, module), without gaps. */
  version: number;
  source: string;
  locale: string;
  /** SHA-256 hex of the source's UTF-8 bytes. */
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  actorId: string;
  createdAt: string;
}

export type PolicyActivationKind = 'DEPLOY' | 'ROLLBACK';

/**
 * One change of a module's active version, numbered `seq` 1, 2, … per (tenant, module). The
 * activation with the highest seq names the active version; every other version is superseded.
 * Activations are only ever inserted, so "which version is active" needs no update in place.
 */
export interface PolicyActivation {
  policyModule: string;
  seq: number;
  kind: PolicyActivationKind;
  /** Active from this activation on; 0 names the service's built-in module of that name. */
  version: number;
  /** The version active before: the predecessor's `version`; for seq 1, 0 (built-in) or null (none). */
  previousVersion: number | null;
  /** Highest version any deploy activated up to and including this activation. */
  highestDeployed: number;
  actorId: string;
  occurredAt: string;
}

export interface PolicyRepository {
  /** Highest stored version of the module; 0 when it has none. */
  latestVersion(tenantId: string, policyModule: string): Promise<number>;
  /**
   * Stores a new version. Returns false when the (tenant, module, version) already exists (another
   * deployer took the number: retry with the next). Throws PolicyLogError when version − 1 does
   * not exist, so versions stay contiguous.
   */
  insertVersion(tenantId: string, version: PolicyModuleVersion): Promise<boolean>;
  getVersion(tenantId: string, policyModule: string, version: number): Promise<PolicyModuleVersion | null>;
  /** Every version of the tenant, or of one module, ordered by module then version. */
  listVersions(tenantId: string, policyModule?: string): Promise<PolicyModuleVersion[]>;
  /** The newest activation of the module (it names the active version); null when none. */
  headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null>;
  /**
   * Inserts the activation. Returns false when its seq already exists (another writer won: re-read
   * the head and decide again). Throws PolicyLogError when it does not extend the stored log (seq − 1
   * missing, `previousVersion` not the predecessor's version) or names a version that is not stored.
   */
  appendActivation(tenantId: string, activation: PolicyActivation): Promise<boolean>;
  /** Activations of the tenant, or of one module, ordered by module then seq. */
  listActivations(tenantId: string, policyModule?: string): Promise<PolicyActivation[]>;
}

/** What one or more evaluations add to a per-minute bucket. */
export interface RollupIncrement {
  policyModule: string;
  policyFunction: string;
  /** Module version evaluated; 0 for the built-in module. */
  version: number;
  /** Start of the UTC minute (`2026-01-02T03:04:00.000Z`). */
  minute: string;
  count: number;
  failures: number;
  /** Sum of execution times, milliseconds. */
  timeSum: number;
  /** Longest execution time, milliseconds. */
  max: number;
}

/** A bucket as read back: the sum of every increment it received. */
export type RollupBucket = RollupIncrement;

export interface RollupQuery {
  /** Inclusive ISO 8601 bounds on the bucket's minute. */
  from: string;
  to: string;
  policyModule?: string;
  policyFunction?: string;
  version?: number;
}

export interface RollupRepository {
  /**
   * Adds each increment to its bucket, creating it when absent: count, failures and timeSum add up,
   * max keeps the larger. No increment is lost to concurrent writers in this or another process.
   */
  add(tenantId: string, increments: readonly RollupIncrement[]): Promise<void>;
  /** Buckets in the window, ordered by module, function, version, minute. */
  range(tenantId: string, query: RollupQuery): Promise<RollupBucket[]>;
  /** Tenants with at least one bucket whose minute lies in the inclusive window, sorted. */
  tenantsWithBuckets(from: string, to: string): Promise<string[]>;
}

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
  /** The tenant's record with this id (an indexed lookup), or null. */
  findById(tenantId: string, id: string): Promise<AuditRecord | null>;
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

/** The response an idempotent request produced, replayed for a repeated key. */
export interface IdempotentResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord {
  key: string;
  /** Hash of method, path and body: a reused key with a different request is refused. */
  requestHash: string;
  /** Random per attempt: only the request that took the key may complete or release it. */
  owner: string;
  /** Null while the first request runs; its response once it completed. */
  response: IdempotentResponse | null;
  createdAt: string;
  /** While running: the end of the running lease; once completed: the end of the replay period. */
  expiresAt: string;
}

export interface IdempotencyRepository {
  /** Expired records are treated as absent (TTL indexes are not enforced by every backend). */
  get(tenantId: string, key: string, now: Date): Promise<IdempotencyRecord | null>;
  /** First writer wins: returns false when an unexpired record with the key already exists. */
  putIfAbsent(tenantId: string, record: IdempotencyRecord, now: Date): Promise<boolean>;
  /**
   * Stores the response of the owner's request and its new expiry. Returns false, changing nothing,
   * when the owner no longer holds the key (its lease expired and another request took it).
   */
  complete(tenantId: string, key: string, owner: string, response: IdempotentResponse, expiresAt: string): Promise<boolean>;
  /** Frees a running key the owner still holds (its request failed: a retry may run it again). */
  release(tenantId: string, key: string, owner: string): Promise<void>;
}

/** Everything a process needs from its store; one instance per process. */
export interface Store {
  readonly kind: 'sqlite' | 'mongo';
  readonly audit: AuditChainRepository;
  readonly tenants: TenantRepository;
  readonly idempotency: IdempotencyRepository;
  readonly policies: PolicyRepository;
  readonly rollups: RollupRepository;
  readonly anomalies: AnomalyRepository;
  readonly anomalySettings: AnomalySettingsRepository;
  readonly workflows: WorkflowRepository;
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

/**
 * Who may write an owed audit record, and until when (ISO 8601). Past `until` the holder is
 * presumed gone and another writer may take the claim over.
 */
export interface AuditClaim {
  owner: string;
  until: string;
}

/**
 * Stored in the same insert as an entry of a log that is an audit outbox (a deployed version, a
 * rollback activation, an anomaly status transition): the audit record the entry owes (written
 * with `recordId`) and the claim of the writer that stored it.
 */
export interface OwedAudit {
  recordId: string;
  claim: AuditClaim;
}

/** An entry whose audit record is still owed, with its current claim. */
export interface OwedAuditEntry<Entry> {
  tenantId: string;
  entry: Entry;
  recordId: string;
  claim: AuditClaim;
}

/**
 * A log whose entries are stored owing their audit records: the log is the outbox of its records.
 * Entries stored without an owed record owe nothing; once marked audited, an entry never owes again.
 */
export interface AuditOutboxRepository<Entry> {
  /**
   * Entries of every tenant whose audit record is owed and whose claim ended before `now`, the
   * longest-ended claim first, at most `limit`. One of the few reads across tenants: the follower
   * that writes owed records serves them all.
   */
  owedAudits(now: string, limit: number): Promise<OwedAuditEntry<Entry>[]>;
  /**
   * Gives the entry's claim to `claim.owner` until `claim.until` when its record is still owed and
   * its current claim ended before `now`. Of concurrent claimers (any connection, any process) at
   * most one gets true.
   */
  claimAudit(tenantId: string, entry: Entry, claim: AuditClaim, now: string): Promise<boolean>;
  /**
   * Records that the entry's audit record is in the chain; idempotent, and a no-op for an entry
   * that owes nothing.
   */
  markAudited(tenantId: string, entry: Entry, at: string): Promise<void>;
}

/** A registry entry that can owe an audit record: a deployed version or a rollback activation. */
export type AuditedRegistryEntry =
  | { kind: 'version'; policyModule: string; version: number }
  | { kind: 'activation'; policyModule: string; seq: number };

/** The policy registry; its versions and activations are the outbox of their audit records. */
export interface PolicyRepository extends AuditOutboxRepository<AuditedRegistryEntry> {
  /** Highest stored version of the module; 0 when it has none. */
  latestVersion(tenantId: string, policyModule: string): Promise<number>;
  /**
   * Stores a new version, with the audit record it owes when given (in the same insert). Returns false when the (tenant, module, version) already exists (another
   * deployer took the number: retry with the next). Throws PolicyLogError when version − 1 does
   * not exist, so versions stay contiguous.
   */
  insertVersion(tenantId: string, version: PolicyModuleVersion, owedAudit?: OwedAudit): Promise<boolean>;
  getVersion(tenantId: string, policyModule: string, version: number): Promise<PolicyModuleVersion | null>;
  /** A page of one module's versions, ascending, without their sources or signatures (never read), with how many it has. */
  listVersions(tenantId: string, policyModule: string, page: { offset: number; limit: number }): Promise<PolicyVersionPage>;
  /** The newest activation of the module (it names the active version); null when none. */
  headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null>;
  /**
   * Inserts the activation, with the audit record it owes when given (in the same insert). Returns
   * false when its seq already exists (another writer won: re-read
   * the head and decide again). Throws PolicyLogError when it does not extend the stored log (seq − 1
   * missing, `previousVersion` not the predecessor's version) or names a version that is not stored.
   */
  appendActivation(tenantId: string, activation: PolicyActivation, owedAudit?: OwedAudit): Promise<boolean>;
  /** Activations of the tenant, or of one module, ordered by module then seq. */
  listActivations(tenantId: string, policyModule?: string): Promise<PolicyActivation[]>;
  /**
   * A page of the rules of the tenant's stored versions, in the order module, version, the rule's
   * place in its version, with the number of all rules the query matches. Reads no source, and
   * costs the page and the tenant's number of versions, never its number of rules.
   */
  listRules(tenantId: string, query: PolicyRuleQuery): Promise<PolicyRulePage>;
  /** How many versions the tenant has stored, across its modules. */
  countVersions(tenantId: string): Promise<number>;
}

/**
 * A stored version as lists show it: neither its source nor its rules' signatures (a version's
 * signatures can weigh more than its source), only how many rules it has.
 */
export type PolicyVersionEntry = Omit<PolicyModuleVersion, 'source' | 'functions'> & { ruleCount: number };

export interface PolicyVersionPage {
  items: PolicyVersionEntry[];
  /** Every version of the module, whatever the page. */
  total: number;
}

/** One rule of a stored module version as lists show it: the source belongs to the version. */
export interface PolicyRuleEntry {
  policyModule: string;
  version: number;
  policyFunction: string;
  locale: string;
  createdAt: string;
}

export interface PolicyRuleQuery {
  policyModule?: string;
  /**
   * true: only the rules of each module's active version (the one its newest activation names);
   * false: only the rules of its other versions; absent: all.
   */
  active?: boolean;
  /** Rules skipped, then at most `limit` returned (0: the total only). */
  offset: number;
  limit: number;
}

export interface PolicyRulePage {
  items: PolicyRuleEntry[];
  /** Every rule the query matches, whatever the page. */
  total: number;
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
  /** Sum of squared execution times, ms² (with count and timeSum it gives the variance). */
  timeSquares: number;
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

/** One version of one policy function: what a rollup total is about. */
export type RollupVersionKey = Pick<RollupIncrement, 'policyModule' | 'policyFunction' | 'version'>;

/** A scan of one policy function's buckets. */
export interface RollupScanQuery extends RollupQuery {
  policyModule: string;
  policyFunction: string;
}

export interface RollupRepository {
  /**
   * Adds each increment to its bucket, creating it when absent: count, failures and timeSum add up,
   * max keeps the larger. No increment is lost to concurrent writers in this or another process.
   */
  add(tenantId: string, increments: readonly RollupIncrement[]): Promise<void>;
  /** Buckets in the window, ordered by module, function, version, minute. */
  range(tenantId: string, query: RollupQuery): Promise<RollupBucket[]>;
  /**
   * The function's buckets in the window (of one version when `version` is given), ordered by
   * version then minute, read in pages of `pageSize`: memory stays bounded however many there are.
   */
  scan(tenantId: string, query: RollupScanQuery, pageSize: number): AsyncIterable<RollupBucket>;
  /**
   * Per (module, function, version), the sums of the buckets in the window (max: the largest), of
   * one module, function or version when named, in no particular order. Reads each bucket in the
   * window once, never a version's history outside it, and holds one total per version; a large
   * window is read in pages with turns of the event loop between them (SQLite answers synchronously).
   */
  totals(tenantId: string, query: RollupQuery): Promise<RollupTotals[]>;
  /** Tenants with at least one bucket whose minute lies in the inclusive window, sorted. */
  tenantsWithBuckets(from: string, to: string): Promise<string[]>;
}

/** A window's buckets of one version summed. */
export interface RollupTotals {
  policyModule: string;
  policyFunction: string;
  version: number;
  count: number;
  failures: number;
  timeSum: number;
  timeSquares: number;
  max: number;
  /** How many minute buckets were summed. */
  buckets: number;
}

export const ANOMALY_TYPES = ['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'] as const;
export type AnomalyType = (typeof ANOMALY_TYPES)[number];
export const ANOMALY_STATUSES = ['OPEN', 'VERIFYING', 'RESOLVED', 'DISMISSED'] as const;
export type AnomalyStatus = (typeof ANOMALY_STATUSES)[number];
export const ANOMALY_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];

/** What an anomaly is about: at most one live (OPEN or VERIFYING) anomaly per tenant and key. */
export interface AnomalyKey {
  type: AnomalyType;
  policyModule: string;
  policyFunction: string;
  /** Module version; 0 for the built-in module. */
  version: number;
}

/** What one detection saw; the newest replaces the one before. */
export interface AnomalyObservation {
  observedAt: string;
  severity: AnomalySeverity;
  summary: string;
  /** Plain JSON numbers and strings, specific to the type. */
  metrics: Record<string, unknown>;
  recommendedActions: string[];
}

/** What the last verification job found. */
export interface AnomalyVerification {
  verifiedAt: string;
  /** The status the job set. */
  outcome: 'RESOLVED' | 'OPEN';
  /** `CONDITION_HOLDS`, `CONDITION_CLEARED` or `NO_TRAFFIC`. */
  reason: string;
  /** The type's metrics over the window the job looked at. */
  metrics: Record<string, unknown>;
}

/** An anomaly as stored: its identity never changes; observation and verification are replaced. */
export interface StoredAnomaly extends AnomalyKey {
  id: string;
  /** 1, 2, … per tenant and key: a new anomaly after the previous one ended (resolved, dismissed). */
  occurrence: number;
  detectedAt: string;
  observation: AnomalyObservation;
  verification: AnomalyVerification | null;
}

/**
 * One status change, numbered `seq` 1, 2, … per anomaly, insert-only: the unique (tenant,
 * anomaly, seq) decides races between concurrent changes, as activations do for policies.
 */
export interface AnomalyTransition {
  anomalyId: string;
  seq: number;
  from: AnomalyStatus;
  to: AnomalyStatus;
  note: string | null;
  actorId: string;
  occurredAt: string;
  /** What the verification job found, on the change it made; absent on every other change. */
  verification?: AnomalyVerification;
}

/**
 * An anomaly log entry that can owe an audit record: the anomaly's detection (its ANOMALY_DETECTED
 * record) or a status transition by its place in the log (its ANOMALY_STATUS_CHANGED record).
 */
export type AuditedAnomalyEntry = { kind: 'detection'; anomalyId: string } | { kind: 'transition'; anomalyId: string; seq: number };

/** An anomaly and its status: the `to` of its newest transition, OPEN when it has none. */
export interface AnomalyState extends StoredAnomaly {
  status: AnomalyStatus;
  /** Seq of the newest transition; 0 when none. */
  statusSeq: number;
  /** When the newest transition happened; null when none. */
  statusChangedAt: string | null;
}

export interface AnomalyListQuery {
  type?: AnomalyType;
  /** Inclusive lower bound on detectedAt. */
  detectedFrom: string;
  offset: number;
  limit: number;
}

export interface AnomalyPage {
  items: AnomalyState[];
  /** Every anomaly matching the query, whatever the offset and limit. */
  total: number;
}

/**
 * Anomalies and their status logs; the anomalies (for their detection) and the transitions are the
 * outbox of their audit records.
 */
export interface AnomalyRepository extends AuditOutboxRepository<AuditedAnomalyEntry> {
  /**
   * Stores a new anomaly, with the ANOMALY_DETECTED record it owes when given (in the same insert).
   * Returns false, changing nothing, when the tenant already has that key and occurrence (another
   * detector opened it first: read it with `latest`).
   */
  insert(tenantId: string, anomaly: StoredAnomaly, owedAudit?: OwedAudit): Promise<boolean>;
  /**
   * The anomaly as it was inserted (its first observation; a detection round replaces the stored
   * one), for the record its detection owes; null for an unknown id, or an anomaly stored before
   * the store kept what it was detected with. An adapter that stores a detection and its anomaly
   * in two inserts stores here the anomaly of a detection whose writer stopped between them.
   */
  asDetected(tenantId: string, id: string): Promise<StoredAnomaly | null>;
  /** The key's anomaly with the highest occurrence, or null. */
  latest(tenantId: string, key: AnomalyKey): Promise<AnomalyState | null>;
  get(tenantId: string, id: string): Promise<AnomalyState | null>;
  /** Newest detectedAt first (ties: id ascending). */
  list(tenantId: string, query: AnomalyListQuery): Promise<AnomalyPage>;
  /** Replaces the observation and/or the verification; false for an unknown id. */
  update(
    tenantId: string,
    id: string,
    change: { observation?: AnomalyObservation; verification?: AnomalyVerification },
  ): Promise<boolean>;
  /**
   * Inserts the transition, with the audit record it owes when given (in the same insert). Returns
   * false when its seq already exists (another change won: re-read and decide again). Throws
   * StoreArgumentError for an unknown anomaly, a seq whose predecessor is missing, or a `from` that
   * is not the predecessor's `to` (OPEN for seq 1).
   */
  appendTransition(tenantId: string, transition: AnomalyTransition, owedAudit?: OwedAudit): Promise<boolean>;
  /** The anomaly's transitions, oldest first. */
  transitions(tenantId: string, anomalyId: string): Promise<AnomalyTransition[]>;
}

/** A tenant's overrides of the detection defaults, replaced as a whole. */
export interface AnomalySettingsRecord {
  /** Setting name to value; names and ranges are the anomalies module's to check. */
  values: Record<string, number>;
  actorId: string;
  updatedAt: string;
}

export interface AnomalySettingsRepository {
  get(tenantId: string): Promise<AnomalySettingsRecord | null>;
  /** Replaces the tenant's overrides (last writer wins). */
  put(tenantId: string, record: AnomalySettingsRecord): Promise<void>;
}

/**
 * A started workflow: what it runs and with which input. Stored once, never changed (beside it the
 * store keeps only when the workflow finished: see `markFinished`).
 */
export interface WorkflowRecord {
  /** Opaque and unique across tenants (the events endpoint tells another tenant's apart: 403). */
  workflowId: string;
  policyModule: string;
  /** The module version pinned at start; 0 for the built-in module. */
  version: number;
  /** The workflow's name in the module. */
  workflow: string;
  /** The workflow's parameters by name. */
  context: Record<string, unknown>;
  actorId: string;
  startedAt: string;
}

/** One entry of a workflow's event log, numbered `sequence` 1, 2, … without gaps. */
export interface WorkflowEvent {
  sequence: number;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

/**
 * Workflows and their event logs. A workflow's progress is only its log: appends are inserts into
 * the unique (tenant, workflow, sequence), so two writers can never store the same sequence and a
 * writer that lost learns it from the count.
 */
export interface WorkflowRepository {
  /** Stores a new workflow; false when its id is taken (nothing changes). */
  create(tenantId: string, record: WorkflowRecord): Promise<boolean>;
  get(tenantId: string, workflowId: string): Promise<WorkflowRecord | null>;
  /**
   * The tenant that owns the workflow, or null when no tenant does. The only read across tenants:
   * the interface answers 403, not 404, for another tenant's workflow.
   */
  ownerOf(workflowId: string): Promise<string | null>;
  /**
   * Inserts events with consecutive sequences in order, stopping at the first sequence that exists
   * (another writer won); returns how many were inserted. Throws StoreArgumentError when the first
   * does not follow the stored log (its predecessor is missing) or the workflow is unknown.
   */
  append(tenantId: string, workflowId: string, events: readonly WorkflowEvent[]): Promise<number>;
  /** Events with sequence ≥ fromSeq, ascending, at most `limit`. */
  events(tenantId: string, workflowId: string, fromSeq: number, limit: number): Promise<WorkflowEvent[]>;
  /** The event of the highest sequence, or null when the log is empty (or not the tenant's): one indexed read, whatever the log's length. */
  lastEvent(tenantId: string, workflowId: string): Promise<WorkflowEvent | null>;
  /**
   * Notes that the workflow's log ended (a terminal event at `finishedAt`), so `listUnfinished`
   * leaves it out. The first mark stays; an unknown workflow or another tenant's is a no-op.
   */
  markFinished(tenantId: string, workflowId: string, finishedAt: string): Promise<void>;
  /**
   * Workflows of every tenant not marked finished, by ascending id after `afterWorkflowId` (null:
   * from the first), at most `limit`: a page of an indexed range, however many have finished. A
   * read across tenants, for the sweep that resumes workflows whose jobs were lost.
   */
  listUnfinished(afterWorkflowId: string | null, limit: number): Promise<UnfinishedWorkflow[]>;
  /**
   * What the tenant's workflows hold, for its quotas: counters kept with the writes above, so a
   * read never walks workflows or events.
   */
  usage(tenantId: string): Promise<WorkflowUsage>;
}

/** A tenant's workflows as its quotas count them. */
export interface WorkflowUsage {
  /** Workflows created and not marked finished. */
  unfinished: number;
  /** Bytes of every stored context and event payload as JSON text (UTF-8), finished workflows included. */
  storedBytes: number;
}

/** A workflow not marked finished, as `listUnfinished` names it. */
export interface UnfinishedWorkflow {
  tenantId: string;
  workflowId: string;
}

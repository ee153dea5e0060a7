import type { Db, IndexDescription, ObjectId } from 'mongodb';

/** Collection names and document shapes of the MongoDB adapter. */
export const COLLECTIONS = {
  audit: 'audit_records',
  unlinked: 'audit_unlinked',
  linkLog: 'audit_link_log',
  chainHeads: 'audit_chain_heads',
  linkedIds: 'audit_linked_ids',
  tenants: 'tenants',
  secrets: 'tenant_secrets',
  idempotency: 'idempotency_records',
} as const;

/**
 * `_id` is `<tenant>:<seq>`: tenant ids never contain `:`, and an `_id` equality is the one lookup
 * every MongoDB-compatible backend serves from an index (the predecessor check on each batch).
 * `payload` is kept as JSON text: the hash needs the exact value back, and BSON documents refuse
 * keys with `.` or a leading `$` on some backends.
 */
export interface AuditDocument {
  _id: string;
  tenantId: string;
  seq: number;
  id: string;
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  occurredAt: string;
  payload: string;
  hash: string;
  previousHash: string;
}

/**
 * A record stored by the process that answered, waiting for its link. `_id` is `<tenant>:<id>`, so
 * storing a record twice is a duplicate key. `order` is an ObjectId set at insert: it grows within a
 * process and follows the clock to the second across processes, which is all stored order needs.
 * The content is one JSON text: FerretDB reads every document of a collection for any query, and a
 * document of few fields reads in half the time (the linker reads these twice per batch).
 */
export interface UnlinkedAuditDocument {
  _id: string;
  tenantId: string;
  storedAt: string;
  order: ObjectId;
  /** JSON of the UnlinkedAuditRecord without `storedAt`. */
  record: string;
}

/**
 * One entry of a tenant's link log, `_id` `<tenant>:<n>` with n = 1, 2, 3, … and no gaps. Taking
 * the lease and linking records are each the insert of the next entry, so the unique `_id` decides
 * between writers (an update with a filter is no compare-and-set on FerretDB 1.24: several of
 * concurrent updates matching one document succeed). The newest entry is the tenant's state.
 */
export interface LinkLogDocument {
  _id: string;
  tenantId: string;
  n: number;
  /** The chain's head once this entry is applied: seq 0 and hash null before the first record. */
  seq: number;
  hash: string | null;
  holder: string;
  /** The n of the entry that took the lease: it grows at every change of holder. */
  epoch: number;
  /** On an entry that took the lease: until when, as taken (renewals go to the head document). */
  until?: string;
  /** On a link: the ids of the records it puts into the chain, seqs `fromSeq` to `seq`, in order. */
  link?: { fromSeq: number; ids: string[] };
}

/**
 * The newest link log entry as its writer last wrote it, and the lease's `until`, in one small
 * document per tenant (`_id` is the tenant id): what takers and renewals read, so the hot path never
 * reads the growing log. A hint, never trusted to decide: the log's unique `_id` does.
 */
export interface ChainHeadDocument {
  _id: string;
  n: number;
  seq: number;
  hash: string | null;
  holder: string;
  epoch: number;
  /** Absent when the document was made by a link after it was lost: the lease then counts as ended. */
  until?: string;
  /** The chain holds the head record: no link is left half-written. */
  complete: boolean;
}

/**
 * A record id claimed by the link at log entry `n`, inserted before that entry: `_id` is
 * `<tenant>:<id>`, so a record stored again after its link is found by the duplicate key.
 */
export interface LinkedIdDocument {
  _id: string;
  tenantId: string;
  n: number;
}

/** The first secret lives inside the tenant document so that creating a tenant is one insert. */
export interface TenantDocument {
  _id: string;
  createdAt: string;
  firstSecret: { version: number; secret: string; createdAt: string };
}

/** Later secrets: `_id` is `<tenant>:<version>`, so a repeated version is a duplicate key. */
export interface SecretDocument {
  _id: string;
  tenantId: string;
  version: number;
  secret: string;
  createdAt: string;
}

/** `_id` is a fresh ObjectId per record: deleting an expired record by `_id` never hits its successor. */
export interface IdempotencyDocument {
  tenantId: string;
  key: string;
  requestHash: string;
  /** Absent on records written before owners existed. */
  owner?: string;
  /** Null while the first request runs. */
  status: number | null;
  body: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export function auditDocumentId(tenantId: string, seq: number): string {
  return `${tenantId}:${seq}`;
}

/** `<tenant>:<record id>` (audit_unlinked, audit_linked_ids). */
export function recordIdDocumentId(tenantId: string, id: string): string {
  return `${tenantId}:${id}`;
}

export function linkLogDocumentId(tenantId: string, n: number): string {
  return `${tenantId}:${n}`;
}

/** Index names the unlinked records' queries hint at. */
export const UNLINKED_INDEXES = { tenantOrder: 'tenant_order', storedAt: 'stored_at' } as const;

export const INDEXES: Record<string, IndexDescription[]> = {
  [COLLECTIONS.audit]: [
    { key: { tenantId: 1, seq: 1 }, name: 'tenant_seq_unique', unique: true },
    { key: { tenantId: 1, eventType: 1, seq: -1 }, name: 'tenant_event_type_seq' },
    { key: { tenantId: 1, policyModule: 1, policyFunction: 1, seq: -1 }, name: 'tenant_policy_seq' },
    { key: { tenantId: 1, occurredAt: 1 }, name: 'tenant_occurred_at' },
    // "Is this owed record already in the chain?" (src/audit/audit-outbox-follower.ts).
    { key: { tenantId: 1, id: 1 }, name: 'tenant_id' },
  ],
  [COLLECTIONS.unlinked]: [
    { key: { tenantId: 1, order: 1 }, name: UNLINKED_INDEXES.tenantOrder },
    // "Which tenants have records waiting since before …?" (the linkers' sweep).
    { key: { storedAt: 1 }, name: UNLINKED_INDEXES.storedAt },
  ],
  [COLLECTIONS.secrets]: [{ key: { tenantId: 1, version: -1 }, name: 'tenant_version_unique', unique: true }],
  [COLLECTIONS.idempotency]: [{ key: { tenantId: 1, key: 1 }, name: 'tenant_key_unique', unique: true }],
};

/** Garbage collection only: expiry is always checked on read, since not every backend enforces TTL. */
export const TTL_INDEX: { collection: string; index: IndexDescription } = {
  collection: COLLECTIONS.idempotency,
  index: { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0 },
};

const NOT_IMPLEMENTED = 238;

export interface IndexReport {
  ttlEnforced: boolean;
}

/** Creates every index (idempotent). Fails when a unique index cannot be built: it carries invariants. */
export async function ensureIndexes(db: Db): Promise<IndexReport> {
  for (const [collection, indexes] of Object.entries(INDEXES)) {
    // One index per command: FerretDB 1.24 drops the connection when one createIndexes command
    // names several indexes that already exist (every start-up after the first).
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
  try {
    await db.collection(TTL_INDEX.collection).createIndexes([TTL_INDEX.index]);
    return { ttlEnforced: true };
  } catch (error) {
    if ((error as { code?: number }).code === NOT_IMPLEMENTED) return { ttlEnforced: false };
    throw error;
  }
}

import type { Db, IndexDescription } from 'mongodb';

/** Collection names and document shapes of the MongoDB adapter. */
export const COLLECTIONS = {
  audit: 'audit_records',
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

export const INDEXES: Record<string, IndexDescription[]> = {
  [COLLECTIONS.audit]: [
    { key: { tenantId: 1, seq: 1 }, name: 'tenant_seq_unique', unique: true },
    { key: { tenantId: 1, eventType: 1, seq: -1 }, name: 'tenant_event_type_seq' },
    { key: { tenantId: 1, policyModule: 1, policyFunction: 1, seq: -1 }, name: 'tenant_policy_seq' },
    { key: { tenantId: 1, occurredAt: 1 }, name: 'tenant_occurred_at' },
    // "Is this owed record already in the chain?" (src/audit/audit-outbox-follower.ts).
    { key: { tenantId: 1, id: 1 }, name: 'tenant_id' },
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

import type { Db, IndexDescription } from 'mongodb';
import type { PolicyActivationKind, PolicyFunctionSignature } from '../ports.js';

/** Collections of the policy registry and its rollups, and their document shapes. */
export const POLICY_COLLECTIONS = {
  versions: 'policy_versions',
  activations: 'policy_activations',
  rollups: 'policy_rollups',
  auditClaims: 'policy_audit_claims',
} as const;

/**
 * The audit record a version or rollback activation owes, stored in its own insert. `claimedBy` /
 * `claimedUntil` is the first claim (the writer that stored it); later claims are documents of
 * their own (AuditClaimDocument), since a conditional update is no compare-and-set on FerretDB.
 */
export interface OwedAuditField {
  recordId: string;
  claimedBy: string;
  claimedUntil: string;
  /** When the record was seen in the chain; null while owed. */
  auditedAt: string | null;
}

/**
 * Fields of an entry that owes (or owed) an audit record. Entries without them owe nothing.
 * `auditPending` is present (true) only while the record is owed, so the sparse index on it holds
 * exactly the owed entries.
 */
export interface AuditedEntryFields {
  audit?: OwedAuditField;
  auditPending?: true;
}

/**
 * A claim after the first: `_id` is `<tenant>:<recordId>:<generation>` (generation 2, 3, …; 1 is
 * the claim stored with the entry). Taking a claim over is inserting the next generation, so the
 * unique `_id` lets one of concurrent claimers win.
 */
export interface AuditClaimDocument {
  _id: string;
  tenantId: string;
  recordId: string;
  generation: number;
  claimedBy: string;
  claimedUntil: string;
}

export function auditClaimId(tenantId: string, recordId: string, generation: number): string {
  return `${tenantId}:${recordId}:${generation}`;
}

/** `_id` is `<tenant>:<module>:<version>`; an `_id` equality is served from an index by every backend. */
export interface PolicyVersionDocument extends AuditedEntryFields {
  _id: string;
  tenantId: string;
  policyModule: string;
  version: number;
  source: string;
  locale: string;
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  actorId: string;
  createdAt: string;
}

/** `_id` is `<tenant>:<module>:<seq>`. */
export interface PolicyActivationDocument extends AuditedEntryFields {
  _id: string;
  tenantId: string;
  policyModule: string;
  seq: number;
  kind: PolicyActivationKind;
  version: number;
  previousVersion: number | null;
  highestDeployed: number;
  actorId: string;
  occurredAt: string;
}

/**
 * One writer's share of a bucket: `_id` is `<tenant>:<module>:<function>:<version>:<minute>:<writer>`.
 * Only its writer ever updates it, one update at a time (see mongo-rollup-repository.ts).
 */
export interface RollupDocument {
  _id: string;
  tenantId: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  minute: string;
  writer: string;
  count: number;
  failures: number;
  timeSum: number;
  /** Absent on documents written before sums of squares were kept. */
  timeSquares?: number;
  max: number;
}

/** Tenant ids and names never contain `:` and the number is last, so these ids cannot collide. */
export function policyDocumentId(tenantId: string, policyModule: string, n: number): string {
  return `${tenantId}:${policyModule}:${n}`;
}

export const POLICY_INDEXES: Record<string, IndexDescription[]> = {
  [POLICY_COLLECTIONS.versions]: [
    { key: { tenantId: 1, policyModule: 1, version: 1 }, name: 'tenant_module_version_unique', unique: true },
    // Sparse: owed entries only (FerretDB refuses partial indexes).
    { key: { auditPending: 1 }, name: 'audit_pending', sparse: true },
  ],
  [POLICY_COLLECTIONS.activations]: [
    { key: { tenantId: 1, policyModule: 1, seq: 1 }, name: 'tenant_module_seq_unique', unique: true },
    { key: { auditPending: 1 }, name: 'audit_pending', sparse: true },
  ],
  [POLICY_COLLECTIONS.rollups]: [
    { key: { tenantId: 1, minute: 1 }, name: 'tenant_minute' },
    { key: { minute: 1 }, name: 'minute' },
  ],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensurePolicyIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(POLICY_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}

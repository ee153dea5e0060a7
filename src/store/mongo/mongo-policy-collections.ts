import type { Db, IndexDescription } from 'mongodb';
import type { PolicyActivationKind, PolicyFunctionSignature, RolloutTerms } from '../../policies/policy-store.js';
import { AUDIT_PENDING_INDEX, type AuditedEntryFields } from './mongo-audit-outbox.js';

/** Collections of the policy registry and its rollups, and their document shapes. */
export const POLICY_COLLECTIONS = {
  versions: 'policy_versions',
  activations: 'policy_activations',
  rollups: 'policy_rollups',
  auditClaims: 'policy_audit_claims',
} as const;

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
  /** `functions.length`, read by the rule list without the functions; absent on versions stored before it was kept. */
  ruleCount?: number;
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
  /** Absent on activations stored before rollouts existed. */
  rollout?: RolloutTerms | null;
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
    // The rule list's entries of a tenant's versions, read from this index alone (a covered query).
    { key: { tenantId: 1, policyModule: 1, version: 1, ruleCount: 1 }, name: 'tenant_module_version_rule_count' },
    AUDIT_PENDING_INDEX,
  ],
  [POLICY_COLLECTIONS.activations]: [
    { key: { tenantId: 1, policyModule: 1, seq: 1 }, name: 'tenant_module_seq_unique', unique: true },
    // The rollout guard's query: rollouts started, by tenant and module.
    { key: { kind: 1, tenantId: 1, policyModule: 1, seq: 1 }, name: 'kind_tenant_module_seq' },
    AUDIT_PENDING_INDEX,
  ],
  [POLICY_COLLECTIONS.rollups]: [
    { key: { tenantId: 1, minute: 1 }, name: 'tenant_minute' },
    { key: { minute: 1 }, name: 'minute' },
    // A scan of one function's buckets by version then minute (`scan`).
    { key: { tenantId: 1, policyModule: 1, policyFunction: 1, version: 1, minute: 1 }, name: 'tenant_function_version_minute' },
  ],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensurePolicyIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(POLICY_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}

import type { AnomalySettingsRepository } from '../anomalies/anomaly-settings-store.js';
import type { AnomalyRepository } from '../anomalies/anomaly-store.js';
import type { AuditChainRepository } from '../audit/audit-chain-store.js';
import type { AuditLinkRepository } from '../audit/audit-link-store.js';
import type { IdempotencyRepository } from '../idempotency/idempotency-store.js';
import type { PolicyRepository } from '../policies/policy-store.js';
import type { RollupRepository } from '../rollups/rollup-store.js';
import type { TenantRepository } from '../tenants/tenant-store.js';
import type { WebhookRepository } from '../webhooks/webhook-store.js';
import type { WorkflowRepository } from '../workflows/workflow-store.js';

/**
 * Everything a process needs from its store; one instance per process, provided by an adapter
 * (sqlite/, mongo/). Each repository is declared by the domain that uses it, beside its code; every
 * method takes the tenant id explicitly: a query without a tenant is a bug. The contract suite in
 * test/contracts runs the same cases against both adapters.
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongo';
  readonly audit: AuditChainRepository;
  /** Records stored before they are linked, and the linker leases. */
  readonly auditLinks: AuditLinkRepository;
  readonly tenants: TenantRepository;
  readonly idempotency: IdempotencyRepository;
  readonly policies: PolicyRepository;
  readonly rollups: RollupRepository;
  readonly anomalies: AnomalyRepository;
  readonly anomalySettings: AnomalySettingsRepository;
  readonly workflows: WorkflowRepository;
  readonly webhooks: WebhookRepository;
  /** Resolves when the backend answers a trivial query (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

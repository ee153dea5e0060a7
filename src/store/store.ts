import type { AnomalyRepository, AnomalySettingsRepository } from '../anomalies/index.js';
import type { AuditChainRepository } from '../audit/index.js';
import type { IdempotencyRepository } from '../idempotency/index.js';
import type { PolicyRepository } from '../policies/index.js';
import type { RollupRepository } from '../rollups/index.js';
import type { TenantRepository } from '../tenants/index.js';
import type { WorkflowRepository } from '../workflows/index.js';

/**
 * Everything a process needs from its store; one instance per process, provided by an adapter
 * (sqlite/, mongo/). Each repository is declared by the domain that uses it, beside its code; every
 * method takes the tenant id explicitly: a query without a tenant is a bug. The contract suite in
 * test/contracts runs the same cases against both adapters.
 */
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

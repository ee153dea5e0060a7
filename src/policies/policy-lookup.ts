import type { PolicyCatalog, PolicyRecord, PolicyStatus } from './policy-catalog.js';

/** A policy as the GraphQL `Policy` type shows it; `tenantId` only on the tenant's own policies. */
export interface PolicyLookupView {
  id: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  status: PolicyStatus;
  createdAt: string;
  updatedAt: string;
  source: string;
  /** When the registry reports the owner, the endpoint refuses to show another tenant's policy. */
  tenantId?: string;
}

/**
 * What the GraphQL endpoint needs from the policy registry: tenant-scoped reads only. Both methods
 * must answer for the given tenant alone.
 */
export interface PolicyLookup {
  /** Null for an id the tenant cannot see. */
  get(tenantId: string, id: string): Promise<PolicyLookupView | null>;
  /** The tenant's own policies and the built-in ones, every version. */
  list(tenantId: string): Promise<PolicyLookupView[]>;
}

function view(record: PolicyRecord): PolicyLookupView {
  const { id, policyModule, policyFunction, version, status, createdAt, updatedAt, source, tenantId } = record;
  return {
    id,
    policyModule,
    policyFunction,
    version,
    status,
    createdAt,
    updatedAt,
    source,
    ...(tenantId !== undefined ? { tenantId } : {}),
  };
}

/** Tenant-scoped reads for the GraphQL `getPolicy` and `listPolicies` queries. */
export function createPolicyLookup(registry: PolicyCatalog): PolicyLookup {
  return {
    async get(tenantId, id) {
      const record = await registry.getPolicy(tenantId, id);
      return record === null ? null : view(record);
    },
    async list(tenantId) {
      return (await registry.listPolicies(tenantId)).map(view);
    },
  };
}

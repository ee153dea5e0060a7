import type { PolicyCatalog, PolicyRecord, PolicyStatus } from './policy-catalog.js';

/**
 * A policy as the GraphQL `Policy` type shows it; `tenantId` only on the tenant's own policies.
 * `source` is there when the policy was read by its id; a listed policy's source is its version's,
 * read once per version on request (`PolicyLookup.source`).
 */
export interface PolicyLookupView {
  id: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  status: PolicyStatus;
  createdAt: string;
  updatedAt: string;
  source?: string;
  /** When the registry reports the owner, the endpoint refuses to show another tenant's policy. */
  tenantId?: string;
}

/** A page of the list, `page` from 0. */
export interface PolicyLookupPage {
  page: number;
  size: number;
}

/**
 * What the GraphQL endpoint needs from the policy registry: tenant-scoped reads only. Every method
 * must answer for the given tenant alone.
 */
export interface PolicyLookup {
  /** Null for an id the tenant cannot see. */
  get(tenantId: string, id: string): Promise<PolicyLookupView | null>;
  /** A page of the built-in policies and the tenant's own, every version, without sources. */
  list(tenantId: string, page: PolicyLookupPage): Promise<PolicyLookupView[]>;
  /** The source of a version the tenant can see: one string, shared by every rule of the version. */
  source(tenantId: string, policyModule: string, version: number): Promise<string>;
}

function view(record: PolicyRecord & { source?: string }): PolicyLookupView {
  const { id, policyModule, policyFunction, version, status, createdAt, updatedAt, source, tenantId } = record;
  return {
    id,
    policyModule,
    policyFunction,
    version,
    status,
    createdAt,
    updatedAt,
    ...(source !== undefined ? { source } : {}),
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
    async list(tenantId, page) {
      return (await registry.listPolicies(tenantId, page)).items.map(view);
    },
    async source(tenantId, policyModule, version) {
      return (await registry.getVersionSource(tenantId, policyModule, version)).source;
    },
  };
}

/** The policy statuses of the schema's `PolicyStatus` enum. */
export const POLICY_STATUSES = ['ACTIVE', 'SUPERSEDED', 'RETIRED'] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** One stored policy (one rule of one deployed module version), as the `Policy` type shows it. */
export interface PolicyView {
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
 * What the endpoint needs from the policy registry: tenant-scoped reads only. Both methods must
 * answer for the given tenant alone; `get` resolves null for an id the tenant does not own.
 */
export interface PolicyReader {
  get(tenantId: string, id: string): Promise<PolicyView | null>;
  list(tenantId: string): Promise<PolicyView[]>;
}

import type { StoredPolicyRequest } from './evaluation-request.js';

/** A deployed policy ready to run: its source and what audit records and rollups name. */
export interface ResolvedPolicy {
  source: string;
  locale: string;
  functionName: string;
  policyModule: string;
  version: number;
  versionId: string;
}

export type PolicyResolution =
  | { ok: true; policy: ResolvedPolicy }
  /** The reference names nothing the tenant can see: the item fails on its own (404 when alone). */
  | { ok: false; code: string; message: string };

/**
 * Finds the version of a deployed policy that answers a reference: the pinned version, else the
 * tenant's active one, else the built-in module. Implemented by the policies' version resolver.
 */
export interface PolicyResolver {
  resolve(tenantId: string, request: Pick<StoredPolicyRequest, 'policyModule' | 'policyFunction' | 'version'>): Promise<PolicyResolution>;
}

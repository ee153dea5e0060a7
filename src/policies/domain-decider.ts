import type { ItemResult } from '../engine/index.js';
import { PolicyRegistryError } from './policy-errors.js';
import type { PolicyRegistry } from './policy-registry.js';

export type DomainDecider = (tenantId: string, policyModule: string, policyFunction: string, args: unknown[]) => Promise<ItemResult>;

export interface DomainDeciderOptions {
  /** The actor recorded in POLICY_EVALUATED; default `signed:<tenant>`, the signed-request principal. */
  actorId?: (tenantId: string) => string;
}

/**
 * Decisions of the GraphQL domain queries: the tenant's active version of the module when it
 * deployed one, else the built-in module. Each one is audited (POLICY_EVALUATED) and counted in
 * the rollups. A module or rule the tenant cannot see answers as a failed evaluation, like any
 * other evaluation failure; a rejection means nothing could evaluate.
 */
export function createDomainDecider(registry: PolicyRegistry, options: DomainDeciderOptions = {}): DomainDecider {
  const actorOf = options.actorId ?? ((tenantId: string) => `signed:${tenantId}`);
  return async (tenantId, policyModule, policyFunction, args) => {
    try {
      const { result } = await registry.evaluateStored(tenantId, actorOf(tenantId), { policyModule, policyFunction, context: args });
      return result;
    } catch (error) {
      if (error instanceof PolicyRegistryError && error.status === 404) {
        return { ok: false, value: null, diagnostics: [], error: error.message, executionTimeMs: 0 };
      }
      throw error;
    }
  };
}

import type { PolicyResolution, StoredPolicyResolver } from '../evaluation/index.js';
import { PolicyRegistryError } from './policy-errors.js';
import type { PolicyRegistry } from './policy-registry.js';

/**
 * The registry as the evaluation service's hook for batch items naming a deployed policy: an
 * unknown module, version or rule fails that item alone (with the registry's code), and the
 * evaluations are recorded like single ones (POLICY_EVALUATED and rollups).
 */
export function createStoredPolicyResolver(registry: PolicyRegistry): StoredPolicyResolver {
  return {
    async resolve(tenantId, requests) {
      // Items of one batch often name the same policy: resolve each distinct reference once.
      const distinct = new Map<string, Promise<PolicyResolution>>();
      return Promise.all(
        requests.map((request) => {
          const key = `${request.policyModule}\u0000${request.policyFunction}\u0000${request.version ?? ''}`;
          let resolution = distinct.get(key);
          if (resolution === undefined) {
            resolution = registry.resolve(tenantId, request.policyModule, request.policyFunction, request.version).then(
              (policy): PolicyResolution => ({ ok: true, policy }),
              (error: unknown): PolicyResolution => {
                if (error instanceof PolicyRegistryError && error.status === 404) {
                  return { ok: false, code: error.code, message: error.message };
                }
                throw error;
              },
            );
            distinct.set(key, resolution);
          }
          return resolution;
        }),
      );
    },

    recordEvaluations(tenantId, actorId, evaluations) {
      return registry.recordEvaluations(
        tenantId,
        actorId,
        evaluations.map(({ policy, result }) => ({ policy, result })),
      );
    },
  };
}

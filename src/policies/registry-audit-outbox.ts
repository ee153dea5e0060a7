import type { AuditOutbox } from '../audit/index.js';
import { activationEvent, deployedEvent } from './policy-events.js';
import type { AuditedRegistryEntry, PolicyRepository } from './policy-store.js';

/**
 * The registry as an audit outbox: deployed versions owe their POLICY_DEPLOYED record, rollback
 * and rollout activations their POLICY_ROLLED_BACK or POLICY_ROLLOUT_* record (src/policies/README.md). A record is made of what
 * is stored: a deploy whose process stopped before activating it is recorded as not activated.
 */
export function registryAuditOutbox(policies: PolicyRepository): AuditOutbox<AuditedRegistryEntry> {
  return {
    name: 'registry',
    entries: policies,
    async recordOf({ tenantId, entry }) {
      const activations = await policies.listActivations(tenantId, entry.policyModule);
      if (entry.kind === 'version') {
        const version = await policies.getVersion(tenantId, entry.policyModule, entry.version);
        if (version === null) throw new Error(`owed audit record of a missing version ${entry.policyModule}@${entry.version}`);
        const activation = activations.find((a) => a.kind === 'DEPLOY' && a.version === entry.version) ?? null;
        return deployedEvent(version, activation);
      }
      const activation = activations.find((a) => a.seq === entry.seq);
      if (activation === undefined) throw new Error(`owed audit record of a missing activation ${entry.policyModule} #${entry.seq}`);
      return activationEvent(activation);
    },
  };
}

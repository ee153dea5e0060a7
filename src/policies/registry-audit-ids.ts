import { owedRecordId } from '../audit/index.js';
import { ACTIVATION_EVENT_TYPES, POLICY_DEPLOYED } from './policy-events.js';
import type { PolicyActivationKind } from './policy-store.js';

/** Ids of the audit records the registry owes, fixed by the entry that owes them (see owed-record-id.ts). */

/** The POLICY_DEPLOYED record of a stored version (versions are never renumbered or removed). */
export function deployedRecordId(tenantId: string, policyModule: string, version: number): string {
  return owedRecordId(POLICY_DEPLOYED, tenantId, policyModule, String(version));
}

/** The record of a rollback or rollout step (POLICY_ROLLED_BACK, POLICY_ROLLOUT_*), by the activation's seq. */
export function activationRecordId(kind: Exclude<PolicyActivationKind, 'DEPLOY'>, tenantId: string, policyModule: string, seq: number): string {
  return owedRecordId(ACTIVATION_EVENT_TYPES[kind], tenantId, policyModule, String(seq));
}

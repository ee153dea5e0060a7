import { owedRecordId } from '../audit/index.js';
import { POLICY_DEPLOYED, POLICY_ROLLED_BACK } from './policy-events.js';

/** Ids of the audit records the registry owes, fixed by the entry that owes them (see owed-record-id.ts). */

/** The POLICY_DEPLOYED record of a stored version (versions are never renumbered or removed). */
export function deployedRecordId(tenantId: string, policyModule: string, version: number): string {
  return owedRecordId(POLICY_DEPLOYED, tenantId, policyModule, String(version));
}

/** The POLICY_ROLLED_BACK record of a rollback activation, by its seq. */
export function rolledBackRecordId(tenantId: string, policyModule: string, seq: number): string {
  return owedRecordId(POLICY_ROLLED_BACK, tenantId, policyModule, String(seq));
}

import { createHash } from 'node:crypto';
import { POLICY_DEPLOYED, POLICY_ROLLED_BACK } from './policy-events.js';

/**
 * Ids of the audit records the registry owes, fixed by the entry that owes them: whoever writes a
 * record (the deploying process, or the follower after it failed) writes it with the same id, and
 * can ask the chain whether it is already there. Shaped like every other record id: a UUID, of
 * RFC 9562's version 8 (custom content: here a SHA-256 of the entry's identity).
 */
function uuidOf(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The POLICY_DEPLOYED record of a stored version (versions are never renumbered or removed). */
export function deployedRecordId(tenantId: string, policyModule: string, version: number): string {
  return uuidOf(POLICY_DEPLOYED, tenantId, policyModule, String(version));
}

/** The POLICY_ROLLED_BACK record of a rollback activation, by its seq. */
export function rolledBackRecordId(tenantId: string, policyModule: string, seq: number): string {
  return uuidOf(POLICY_ROLLED_BACK, tenantId, policyModule, String(seq));
}

import type { AuditRecord } from '../audit/index.js';

/** The public shape of a record, as the audit lists and the audit stream give it: stored fields only, whatever else an adapter carries. */
export function auditRecordView(record: AuditRecord): AuditRecord {
  const { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, hash, previousHash } = record;
  return { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, hash, previousHash };
}

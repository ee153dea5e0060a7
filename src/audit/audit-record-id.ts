/**
 * The shape of every audit record id: a UUID in lowercase hex, 8-4-4-4-12 (newAuditRecordId's for a
 * record the recorder names, owedRecordId's for one an entry owes). A value of another shape names
 * no record, so it can be refused before any store is asked.
 */
const AUDIT_RECORD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isAuditRecordId(value: string): boolean {
  return AUDIT_RECORD_ID.test(value);
}

import type { AuditReceipt } from '../audit/index.js';
import type { AppContext } from './app-types.js';

/**
 * How an answer carries the receipt of its audit record (the record's id and content hash, stored
 * before the answer left): headers on a single answer, two fields on each item of a batch and on
 * each decision of a GraphQL answer. With it a client can later fetch the record
 * (`GET /api/v1/audit/records/{id}`) and check that what it was answered is in the verified chain.
 */
export const AUDIT_RECORD_ID_HEADER = 'X-Audit-Record-Id';
export const AUDIT_CONTENT_HASH_HEADER = 'X-Audit-Content-Hash';

/** What the OpenAPI document says of the two headers. */
export const RECEIPT_HEADERS: Readonly<Record<string, string>> = {
  [AUDIT_RECORD_ID_HEADER]: 'The id of the evaluation\'s audit record, stored before this answer (absent when nothing was evaluated)',
  [AUDIT_CONTENT_HASH_HEADER]: 'Lowercase hex SHA-256 of the record\'s canonical content (RFC 8785 JSON of id, eventType, policyModule, policyFunction, actorId, occurredAt, payload)',
};

/** A batch item's or a decision's receipt; both null when nothing was recorded for it. */
export interface ReceiptFields {
  auditRecordId: string | null;
  auditContentHash: string | null;
}

export function receiptFields(receipt: AuditReceipt | undefined): ReceiptFields {
  return { auditRecordId: receipt?.id ?? null, auditContentHash: receipt?.contentHash ?? null };
}

/** A single answer's receipt headers; none when nothing was recorded (refused before it was evaluated). */
export function setReceiptHeaders(ctx: AppContext, receipt: AuditReceipt | undefined): void {
  if (receipt === undefined) return;
  ctx.set(AUDIT_RECORD_ID_HEADER, receipt.id);
  ctx.set(AUDIT_CONTENT_HASH_HEADER, receipt.contentHash);
}

import { isAuditRecordId, type AuditReceipt } from './audit-hash.js';
import { isRecord } from './json-object.js';
import { PolicyProtocolError } from './policy-client-errors.js';

/**
 * The receipts answers carry (the audit record's id and content hash): headers on a single answer,
 * `auditRecordId`/`auditContentHash` on a batch item, `extensions.auditReceipts` in GraphQL. None at
 * all means nothing was recorded; half a receipt, or one of the wrong shape, is a protocol error.
 */

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function isContentHash(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** From `X-Audit-Record-Id` and `X-Audit-Content-Hash`. */
export function receiptFromHeaders(headers: Headers, status: number): AuditReceipt | null {
  return receiptOf(headers.get('x-audit-record-id'), headers.get('x-audit-content-hash'), status, 'the receipt headers');
}

/** From a batch item's (or a GraphQL decision's) `auditRecordId` and `auditContentHash`; absent or null: none. */
export function receiptFromFields(item: Record<string, unknown>, status: number): AuditReceipt | null {
  return receiptOf(item.auditRecordId ?? null, item.auditContentHash ?? null, status, 'auditRecordId and auditContentHash');
}

/** `extensions.auditReceipts` by response key; empty when the answer has none. */
export function receiptsFromExtensions(extensions: Record<string, unknown> | null, status: number): Record<string, AuditReceipt> {
  const byKey = extensions?.auditReceipts;
  if (byKey === undefined || byKey === null) return {};
  if (!isRecord(byKey)) throw new PolicyProtocolError('extensions.auditReceipts is not an object', status, extensions);
  const receipts: Record<string, AuditReceipt> = {};
  for (const [key, fields] of Object.entries(byKey)) {
    if (!isRecord(fields)) throw new PolicyProtocolError(`extensions.auditReceipts.${key} is not an object`, status, extensions);
    const receipt = receiptFromFields(fields, status);
    // defineProperty: a response key is the caller's alias, whatever it is (even `__proto__`).
    if (receipt !== null) Object.defineProperty(receipts, key, { value: receipt, enumerable: true, writable: true, configurable: true });
  }
  return receipts;
}

function receiptOf(id: unknown, contentHash: unknown, status: number, where: string): AuditReceipt | null {
  if (id === null && contentHash === null) return null;
  if (typeof id !== 'string' || !isAuditRecordId(id) || typeof contentHash !== 'string' || !isContentHash(contentHash)) {
    throw new PolicyProtocolError(
      `${where} must name a record id (a lowercase UUID) and a content hash (64 lowercase hex digits), or neither: got ${JSON.stringify([id, contentHash])}`,
      status,
      { id, contentHash },
    );
  }
  return { id, contentHash };
}

import { ObjectId } from 'mongodb';
import { AuditRecordCorruptError } from '../../audit/audit-chain-errors.js';
import type { UnlinkedAuditRecord } from '../../audit/audit-link-store.js';
import { parsePayload } from '../store-rules.js';
import { recordIdDocumentId, type UnlinkedAuditDocument } from './collections.js';

// The payload's text rides along only to spare the SQLite adapter writing it again: the document holds the payload once.
export function toUnlinkedDocument(tenantId: string, { storedAt, payloadText: _text, ...content }: UnlinkedAuditRecord): UnlinkedAuditDocument {
  return { _id: recordIdDocumentId(tenantId, content.id), tenantId, storedAt, order: new ObjectId(), record: JSON.stringify(content) };
}

export function toUnlinkedRecord(d: UnlinkedAuditDocument): UnlinkedAuditRecord {
  // Not yet in the chain: no seq to name in an error, so 0.
  const content = parsePayload(d.tenantId, 0, d.record) as Partial<Omit<UnlinkedAuditRecord, 'storedAt'>>;
  const { payload } = content;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new AuditRecordCorruptError(d.tenantId, 0, `unlinked record ${d._id} has no JSON object payload`);
  }
  return {
    id: content.id!,
    eventType: content.eventType!,
    policyModule: content.policyModule ?? null,
    policyFunction: content.policyFunction ?? null,
    actorId: content.actorId!,
    occurredAt: content.occurredAt!,
    payload,
    contentHash: content.contentHash!,
    storedAt: d.storedAt,
    ...(content.givenId === true ? { givenId: true as const } : {}),
  };
}

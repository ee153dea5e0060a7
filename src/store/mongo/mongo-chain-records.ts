import type { Collection } from 'mongodb';
import { AuditRecordCorruptError } from '../../audit/audit-chain-errors.js';
import type { AuditRecord } from '../../audit/audit-chain-store.js';
import { auditDocumentId, type AuditDocument } from './collections.js';
import { insertedBeforeDuplicate } from './duplicate-key.js';
import { toAuditDocument } from './mongo-audit-chain-repository.js';

/**
 * Inserts the records of a link whose log entry is written, in order, so the chain never has a gap.
 * A seq already taken holds the same record when another process finished the same link first
 * (a take-over, or the stale holder that wrote the entry): it is skipped. Any other record there
 * is damage, refused with a clear error.
 */
export async function insertChainRecords(chain: Collection<AuditDocument>, tenantId: string, records: readonly AuditRecord[]): Promise<void> {
  let rest = records;
  while (rest.length > 0) {
    try {
      await chain.insertMany(
        rest.map((r) => toAuditDocument(tenantId, r)),
        { ordered: true },
      );
      return;
    } catch (error) {
      const inserted = insertedBeforeDuplicate(error, rest.length);
      const after = rest.slice(inserted);
      const stored = await chain
        .find({ _id: { $in: after.map((r) => auditDocumentId(tenantId, r.seq)) } }, { projection: { seq: 1, hash: 1 } })
        .toArray();
      const hashes = new Map(stored.map((d) => [d.seq, d.hash]));
      let next = 0;
      while (next < after.length && hashes.has(after[next]!.seq)) {
        const record = after[next]!;
        if (hashes.get(record.seq) !== record.hash) {
          throw new AuditRecordCorruptError(tenantId, record.seq, 'another record holds the seq the link log gives this one');
        }
        next += 1;
      }
      if (next === 0) throw error;
      rest = after.slice(next);
    }
  }
}

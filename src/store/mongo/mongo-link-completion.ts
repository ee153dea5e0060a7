import type { Db } from 'mongodb';
import { AuditRecordCorruptError } from '../../audit/audit-chain-errors.js';
import { GENESIS_PREVIOUS_HASH, type AuditRecord } from '../../audit/audit-chain-store.js';
import { computeAuditHash } from '../../audit/audit-hash.js';
import { auditDocumentId, COLLECTIONS, recordIdDocumentId, type AuditDocument, type LinkLogDocument, type UnlinkedAuditDocument } from './collections.js';
import { insertChainRecords } from './mongo-chain-records.js';
import type { LinkLog, LogState } from './mongo-link-log.js';
import { toUnlinkedRecord } from './mongo-unlinked-documents.js';

/**
 * Finishes a link whose log entry was written but whose records may not all be in the chain yet
 * (its writer stopped or failed between the two). The records are rebuilt from the unlinked ones the
 * entry names, checked against the head the entry recorded, inserted, and only then removed from the
 * unlinked records, so a record is always in one of the two. Returns the state, now complete.
 */
export type CompleteLink = (tenantId: string, state: LogState) => Promise<LogState>;

export function createLinkCompletion(db: Db, log: LinkLog): CompleteLink {
  const chain = db.collection<AuditDocument>(COLLECTIONS.audit);
  const unlinked = db.collection<UnlinkedAuditDocument>(COLLECTIONS.unlinked);

  async function entry(tenantId: string, n: number): Promise<LinkLogDocument> {
    const found = await log.entryAt(tenantId, n);
    if (found === null) throw new Error(`link log entry ${n} of tenant \`${tenantId}\` is gone (entries must never be deleted)`);
    return found;
  }

  async function chainHolds(tenantId: string, seq: number, hash: string | null): Promise<boolean> {
    const doc = await chain.findOne({ _id: auditDocumentId(tenantId, seq) }, { projection: { hash: 1 } });
    if (doc !== null && doc.hash !== hash) throw new AuditRecordCorruptError(tenantId, seq, 'its hash is not the one the link log recorded');
    return doc !== null;
  }

  async function finish(tenantId: string, link: LinkLogDocument & { link: NonNullable<LinkLogDocument['link']> }): Promise<void> {
    const { fromSeq, ids } = link.link;
    const before = await entry(tenantId, link.n - 1);
    if (before.seq !== fromSeq - 1) throw new AuditRecordCorruptError(tenantId, fromSeq, `the link log's entry ${link.n} does not follow entry ${link.n - 1}`);
    const docs = await unlinked.find({ _id: { $in: ids.map((id) => recordIdDocumentId(tenantId, id)) } }).toArray();
    const byId = new Map(docs.map((d) => toUnlinkedRecord(d)).map((r) => [r.id, r]));
    let records: AuditRecord[] | null = null;
    if (byId.size === ids.length) {
      let previousHash = before.hash ?? GENESIS_PREVIOUS_HASH;
      records = ids.map((id, i) => {
        const { contentHash: _c, storedAt: _s, ...content } = byId.get(id)!;
        const linked = { ...content, seq: fromSeq + i, previousHash };
        const record = { ...linked, hash: computeAuditHash(linked) };
        previousHash = record.hash;
        return record;
      });
      if (previousHash !== link.hash) records = null;
    }
    if (records === null) {
      // Records leave the unlinked ones only once the chain holds the whole link: the link was
      // finished, and what is left are records stored again since.
      if (!(await chainHolds(tenantId, link.seq, link.hash))) {
        throw new AuditRecordCorruptError(
          tenantId,
          link.seq,
          byId.size === ids.length
            ? 'the records stored for its unfinished link do not hash to the head the link log recorded; nothing was written'
            : 'neither the chain nor the unlinked records hold every record of its link',
        );
      }
    } else {
      await insertChainRecords(chain, tenantId, records);
    }
    if (docs.length > 0) await unlinked.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
  }

  return async (tenantId, state) => {
    if (state.complete) return state;
    // The newest link at or before the state's entry: the entries after it only took the lease.
    let newest = await entry(tenantId, state.n);
    while (newest.link === undefined && newest.n > 1) newest = await entry(tenantId, newest.n - 1);
    // Entry 1 starts from the chain as it was stored.
    if (newest.link !== undefined) await finish(tenantId, { ...newest, link: newest.link });
    const done = { ...state, complete: true };
    await log.settle(tenantId, done);
    return done;
  };
}

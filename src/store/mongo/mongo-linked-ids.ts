import type { Db } from 'mongodb';
import { AuditBatchError } from '../../audit/audit-chain-errors.js';
import type { AuditRecord } from '../../audit/audit-chain-store.js';
import type { LinkRecord } from '../../audit/audit-link-store.js';
import { COLLECTIONS, recordIdDocumentId, type LinkedIdDocument, type UnlinkedAuditDocument } from './collections.js';
import { duplicateKeyPositions } from './duplicate-key.js';
import type { LinkLog } from './mongo-link-log.js';

export interface LinkedIdClaims {
  /**
   * Claims the ids of the records whose id was given (`givenId`: only those may be stored again after
   * their link; a generated id is unique as it is) for the link to be appended as entry `n`, on a complete head `n − 1`.
   * Returns the ids whose earlier claim, by a link that was never appended, it took over (to confirm
   * once entry `n` is written), or null when a newer entry claimed one: the caller lost its lease.
   * Throws AuditBatchError when a record is in the chain already (stored again after its link),
   * after dropping it from the unlinked records.
   */
  claim(tenantId: string, n: number, records: readonly LinkRecord[]): Promise<string[] | null>;
  /** Entry `n` is written: the claims taken over for it name it (a rival's update may have been lost). */
  confirm(tenantId: string, n: number, ids: readonly string[]): Promise<void>;
}

/**
 * One claim per linked record whose id was given (an owed record), inserted before the link's log entry: its duplicate key is how a
 * record stored again after its link is found without reading the chain (on FerretDB any query but
 * an insert reads a whole collection). Claims are never deleted. A claim is proof when the entry
 * it names is a link holding the id; a claim of a link that was never appended is taken over.
 */
export function createLinkedIdClaims(db: Db, log: LinkLog): LinkedIdClaims {
  const claims = db.collection<LinkedIdDocument>(COLLECTIONS.linkedIds);
  const unlinked = db.collection<UnlinkedAuditDocument>(COLLECTIONS.unlinked);
  const claimIds = (tenantId: string, ids: readonly string[]) => ids.map((id) => recordIdDocumentId(tenantId, id));

  return {
    async claim(tenantId, n, linking) {
      const records = linking.filter((r) => r.givenId === true);
      if (records.length === 0) return [];
      let refused: AuditRecord[];
      try {
        await claims.insertMany(
          records.map((r) => ({ _id: recordIdDocumentId(tenantId, r.id), tenantId, n })),
          { ordered: false },
        );
        return [];
      } catch (error) {
        refused = duplicateKeyPositions(error).map((i) => records[i]!);
      }
      const earlier = await claims.find({ _id: { $in: claimIds(tenantId, refused.map((r) => r.id)) } }).toArray();
      const byEntry = new Map<number, Set<string>>();
      for (const c of earlier) byEntry.set(c.n, (byEntry.get(c.n) ?? new Set()).add(c._id));
      const linked = new Set<string>();
      const takenOver: string[] = [];
      for (const [claimN, claimed] of byEntry) {
        // A later entry: someone who knows a newer log. This entry: an earlier try of this link (or
        // a rival's for the same entry), which the append decides.
        if (claimN > n) return null;
        if (claimN === n) continue;
        // Entries before n are complete (the caller's head is): a link holding the id put it in the chain.
        const entry = await log.entryAt(tenantId, claimN);
        const inEntry = new Set(claimIds(tenantId, entry?.link?.ids ?? []));
        for (const id of claimed) {
          if (inEntry.has(id)) linked.add(id);
          else takenOver.push(id);
        }
      }
      if (linked.size > 0) {
        const again = refused.filter((r) => linked.has(recordIdDocumentId(tenantId, r.id)));
        await unlinked.deleteMany({ _id: { $in: [...linked] } });
        throw new AuditBatchError(
          tenantId,
          again[0]!.seq,
          `record ${again.map((r) => r.id).join(', ')} is in the chain already (stored again after its link): dropped from the unlinked records, build the batch again`,
        );
      }
      if (takenOver.length > 0) await claims.updateMany({ _id: { $in: takenOver } }, { $set: { n } });
      return takenOver.map((claimId) => claimId.slice(tenantId.length + 1));
    },

    async confirm(tenantId, n, ids) {
      if (ids.length === 0) return;
      const lost = await claims.find({ _id: { $in: claimIds(tenantId, ids) }, n: { $ne: n } }, { projection: { _id: 1 } }).toArray();
      if (lost.length > 0) await claims.updateMany({ _id: { $in: lost.map((c) => c._id) } }, { $set: { n } });
    },
  };
}

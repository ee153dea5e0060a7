import type { Db, IndexDescription } from 'mongodb';
import type { AuditClaim, OwedAudit, OwedAuditEntry } from '../../audit/audit-outbox-store.js';
import { normaliseOwedAudit } from '../audit-outbox-rules.js';
import { contiguousHead } from './contiguous-head.js';
import { isDuplicateKey } from './duplicate-key.js';

/**
 * The audit record an entry owes, stored in the entry's own insert. `claimedBy` / `claimedUntil`
 * is the first claim (the writer that stored it); later claims are documents of their own
 * (AuditClaimDocument), since a conditional update is no compare-and-set on FerretDB.
 */
export interface OwedAuditField {
  recordId: string;
  claimedBy: string;
  claimedUntil: string;
  /** When the record was seen in the chain; null while owed. */
  auditedAt: string | null;
}

/**
 * Fields of an entry that owes (or owed) an audit record. Entries without them owe nothing.
 * `auditPending` is present (true) only while the record is owed, so the sparse index on it holds
 * exactly the owed entries.
 */
export interface AuditedEntryFields {
  audit?: OwedAuditField;
  auditPending?: true;
}

/**
 * A claim after the first: `_id` is `<tenant>:<recordId>:<generation>` (generation 2, 3, …; 1 is
 * the claim stored with the entry). Taking a claim over is inserting the next generation, so the
 * unique `_id` lets one of concurrent claimers win.
 */
export interface AuditClaimDocument {
  _id: string;
  tenantId: string;
  recordId: string;
  generation: number;
  claimedBy: string;
  claimedUntil: string;
}

/** Sparse: owed entries only (FerretDB refuses partial indexes). */
export const AUDIT_PENDING_INDEX: IndexDescription = { key: { auditPending: 1 }, name: 'audit_pending', sparse: true };

export function owedAuditFields(owed: OwedAudit | undefined): AuditedEntryFields {
  if (owed === undefined) return {};
  const { recordId, claim } = normaliseOwedAudit(owed);
  return { audit: { recordId, claimedBy: claim.owner, claimedUntil: claim.until, auditedAt: null }, auditPending: true };
}

/** What the outbox reads of an entry document: its `_id`, tenant, owed fields and the `entryFields`. */
type OwedEntryView = AuditedEntryFields & { _id: string; tenantId: string } & Record<string, unknown>;

export interface MongoOutboxCollection<Entry> {
  /** The collection of entries (documents with the owed fields beside their own). */
  entries: string;
  /** The collection claims after the first are inserted into. */
  claims: string;
  /** The fields `entryOf` reads. */
  entryFields: readonly string[];
  entryOf(doc: Record<string, unknown>): Entry;
  documentId(tenantId: string, entry: Entry): string;
}

export interface MongoAuditOutbox<Entry> {
  /** Owed entries whose current claim ended before `before` (unsorted, unlimited: the caller orders). */
  owed(before: string): Promise<OwedAuditEntry<Entry>[]>;
  claim(tenantId: string, entry: Entry, claim: AuditClaim, now: string): Promise<boolean>;
  mark(tenantId: string, entry: Entry, at: string): Promise<void>;
}

export function mongoAuditOutbox<Entry>(db: Db, spec: MongoOutboxCollection<Entry>): MongoAuditOutbox<Entry> {
  const entries = db.collection<OwedEntryView>(spec.entries);
  const claims = db.collection<AuditClaimDocument>(spec.claims);
  const projection = Object.fromEntries(['tenantId', 'audit', 'auditPending', ...spec.entryFields].map((field) => [field, 1]));
  const claimId = (tenantId: string, recordId: string, generation: number) => `${tenantId}:${recordId}:${generation}`;

  /** The entry's current claim: the highest generation stored (1 is the one inside the entry). */
  async function currentClaim(tenantId: string, owed: OwedAuditField): Promise<{ generation: number; claim: AuditClaim }> {
    const { head, value } = await contiguousHead((n) => claims.findOne({ _id: claimId(tenantId, owed.recordId, n) }), 1);
    return value === null
      ? { generation: 1, claim: { owner: owed.claimedBy, until: owed.claimedUntil } }
      : { generation: head, claim: { owner: value.claimedBy, until: value.claimedUntil } };
  }

  return {
    async owed(before) {
      const docs = await entries.find({ auditPending: true }, { projection }).toArray();
      const owed: OwedAuditEntry<Entry>[] = [];
      for (const doc of docs) {
        // A later claim is only taken after the first ended, so an unended first claim is the current one.
        if (doc.audit === undefined || doc.audit.claimedUntil >= before) continue;
        const { claim } = await currentClaim(doc.tenantId, doc.audit);
        if (claim.until < before) owed.push({ tenantId: doc.tenantId, entry: spec.entryOf(doc), recordId: doc.audit.recordId, claim });
      }
      return owed;
    },

    async claim(tenantId, entry, { owner, until }, now) {
      const doc = await entries.findOne({ _id: spec.documentId(tenantId, entry) }, { projection });
      if (doc?.audit === undefined || doc.auditPending !== true) return false;
      const current = await currentClaim(tenantId, doc.audit);
      if (current.claim.until >= now) return false;
      const generation = current.generation + 1;
      const { recordId } = doc.audit;
      try {
        await claims.insertOne({ _id: claimId(tenantId, recordId, generation), tenantId, recordId, generation, claimedBy: owner, claimedUntil: until });
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      return true;
    },

    async mark(tenantId, entry, at) {
      // Only ever sets the mark: concurrent marks (an update is no compare-and-set on FerretDB) all agree.
      await entries.updateOne({ _id: spec.documentId(tenantId, entry), auditPending: true }, { $set: { 'audit.auditedAt': at }, $unset: { auditPending: '' } });
    },
  };
}

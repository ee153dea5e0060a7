import type { Db } from 'mongodb';
import { GENESIS_PREVIOUS_HASH } from '../../audit/audit-chain-store.js';
import type { AuditLinkRepository, HeldLease } from '../../audit/audit-link-store.js';
import { assertLease, assertLinkBatch, assertUnlinkedEntries, leaseTimes } from '../audit-link-rules.js';
import { assertPageSize, assertRecordId, assertTenantId, normaliseInstant } from '../store-rules.js';
import { COLLECTIONS, linkLogDocumentId, recordIdDocumentId, UNLINKED_INDEXES, type AuditDocument, type UnlinkedAuditDocument } from './collections.js';
import { duplicateKeyPositions } from './duplicate-key.js';
import { createMongoAuditChainRepository } from './mongo-audit-chain-repository.js';
import { insertChainRecords } from './mongo-chain-records.js';
import { createLinkCompletion } from './mongo-link-completion.js';
import { createLinkLog, LEASE_ENDED, type LogState } from './mongo-link-log.js';
import { createLinkedIdClaims } from './mongo-linked-ids.js';
import { toUnlinkedDocument, toUnlinkedRecord } from './mongo-unlinked-documents.js';

/** Tries at one take that find the log moved meanwhile, before leaving the lease to the others. */
const MAX_TAKE_ATTEMPTS = 20;
/** Unlinked records read per query when looking for waiting tenants. */
const WAITING_WINDOW = 1_000;

function byStoredOrder(a: UnlinkedAuditDocument, b: UnlinkedAuditDocument): number {
  return Buffer.compare(a.order.id, b.order.id);
}

function held(state: LogState, until: string): HeldLease {
  return { holder: state.holder, epoch: state.epoch, until, head: state.seq === 0 ? null : { seq: state.seq, hash: state.hash! } };
}

/**
 * Unlinked records and linker leases without transactions (FerretDB 1.24 has none, and no
 * compare-and-set update either): every decision is the insert of a unique `_id`.
 *
 * - A tenant's link log (mongo-link-log.ts) has an entry per change: taking the lease and linking
 *   are each the insert of entry n + 1 on a known entry n, so a holder that lost its lease (the
 *   taker inserted the next entry) can append nothing, and its epoch is the n of its take.
 * - A link is four writes: the ids' claims (mongo-linked-ids.ts: a record stored again after its
 *   link is refused there), the log entry (the point of no return), the chain records, and the
 *   removal of the unlinked ones. A writer that stops after the entry leaves the link to the next
 *   take (mongo-link-completion.ts), renewal included; the chain is written before the unlinked
 *   records are removed, so a record is always found in one of them.
 * - What the hot path reads is small: the unlinked records (waiting ones only) and one head
 *   document per tenant. The log, the claims and the chain grow, and are read only to recover.
 */
export function createMongoAuditLinkRepository(db: Db): AuditLinkRepository {
  const unlinked = db.collection<UnlinkedAuditDocument>(COLLECTIONS.unlinked);
  const chain = db.collection<AuditDocument>(COLLECTIONS.audit);
  const storedChain = createMongoAuditChainRepository(db);
  const log = createLinkLog(db);
  const claims = createLinkedIdClaims(db, log);
  const complete = createLinkCompletion(db, log);

  /** Appends an entry that takes or renews the lease; the lease is held once the entry is written. */
  async function appendLease(tenantId: string, n: number, on: { seq: number; hash: string | null; complete: boolean }, holder: string, epoch: number, until: string): Promise<HeldLease | null> {
    const entry = { _id: linkLogDocumentId(tenantId, n), tenantId, n, seq: on.seq, hash: on.hash, holder, epoch, until };
    if (!(await log.append(entry, on.complete))) return null;
    const state = log.known(tenantId)!;
    await log.settle(tenantId, state, until);
    return held(await complete(tenantId, state), until);
  }

  async function take(tenantId: string, holder: string, until: string, now: string): Promise<HeldLease | null> {
    for (let attempt = 1; attempt <= MAX_TAKE_ATTEMPTS; attempt += 1) {
      const hint = await log.heads.findOne({ _id: tenantId });
      let lease: HeldLease | null;
      let n: number;
      if (hint === null) {
        // The tenant's first take (or its first taker stopped before writing the head document).
        if ((await log.resync(tenantId)) !== null) continue;
        const head = await storedChain.head(tenantId);
        n = 1;
        lease = await appendLease(tenantId, n, { seq: head?.seq ?? 0, hash: head?.hash ?? null, complete: true }, holder, 1, until);
      } else if (hint.holder === holder) {
        // A renewal is an entry too, so that it and a take-over cannot both succeed.
        const state = log.known(tenantId) ?? (await log.resync(tenantId));
        if (state === null || state.holder !== holder) {
          await log.resync(tenantId);
          continue;
        }
        n = state.n + 1;
        lease = await appendLease(tenantId, n, state, holder, state.epoch, until);
      } else {
        if ((hint.until ?? LEASE_ENDED) >= now) return null;
        // The entry carries the head as the head document has it: right exactly when that
        // document names the newest entry, that is when this insert succeeds.
        n = hint.n + 1;
        lease = await appendLease(tenantId, n, hint, holder, n, until);
      }
      if (lease !== null) return lease;
      // Entry n is taken: by another holder's take or renewal (a running lease, unless it stopped
      // before telling the head document), or by entries this process and the head document missed.
      const taken = await log.entryAt(tenantId, n);
      if (taken?.until !== undefined && taken.holder !== holder && taken.until >= now) return null;
      await log.resync(tenantId);
    }
    // The lease kept changing hands while this process tried: others are taking it.
    return null;
  }

  async function deleteUnlinked(tenantId: string, ids: readonly string[]): Promise<void> {
    await unlinked.deleteMany({ _id: { $in: ids.map((id) => recordIdDocumentId(tenantId, id)) } });
  }

  return {
    // A link is a log entry, claims, the chain's insert and the removal: several writes.
    linksInOneWrite: false,
    async storeUnlinked(entries) {
      assertUnlinkedEntries(entries);
      if (entries.length === 0) return;
      try {
        await unlinked.insertMany(
          entries.map(({ tenantId, record }) => toUnlinkedDocument(tenantId, record)),
          { ordered: false },
        );
      } catch (error) {
        // Stored already: the same record written again (an owed record, say).
        duplicateKeyPositions(error);
      }
    },

    async takeLease(tenantId, holder, until, now) {
      assertTenantId(tenantId);
      assertLease({ holder, epoch: 1, until });
      const times = leaseTimes(until, now);
      return take(tenantId, holder, times.until, times.now);
    },

    async releaseLease(tenantId, lease) {
      assertTenantId(tenantId);
      assertLease(lease);
      // A lease that ended long ago: any process may take it at once.
      await log.heads.updateOne({ _id: tenantId, holder: lease.holder, epoch: lease.epoch }, { $set: { until: LEASE_ENDED } });
    },

    async unlinked(tenantId, limit) {
      assertTenantId(tenantId);
      assertPageSize(limit);
      // No sort in the query: MongoDB walks the hinted index in (tenantId, order) order anyway, and
      // FerretDB 1.24, which reads a whole collection to sort it, stops at the limit without one,
      // returning documents as they were inserted. The page is put in order here.
      const docs = await unlinked.find({ tenantId }).hint(UNLINKED_INDEXES.tenantOrder).limit(limit).toArray();
      return docs.sort(byStoredOrder).map(toUnlinkedRecord);
    },

    async link(tenantId, lease, records) {
      assertTenantId(tenantId);
      assertLease(lease);
      assertLinkBatch(tenantId, records);
      const first = records[0]!;
      const last = records[records.length - 1]!;
      const ids = records.map((r) => r.id);
      // A newer lease in the head document: refused before any write.
      const hint = await log.heads.findOne({ _id: tenantId }, { projection: { epoch: 1 } });
      if (hint !== null && hint.epoch > lease.epoch) return false;
      let state = log.known(tenantId) ?? (await log.resync(tenantId));
      let n: number;
      let takenOver: string[];
      for (;;) {
        if (state === null || state.holder !== lease.holder || state.epoch !== lease.epoch) return false;
        if (state.seq !== first.seq - 1 || (state.hash ?? GENESIS_PREVIOUS_HASH) !== first.previousHash) return false;
        state = await complete(tenantId, state);
        n = state.n + 1;
        const claimed = await claims.claim(tenantId, n, records);
        if (claimed === null) return false;
        takenOver = claimed;
        const entry = { _id: linkLogDocumentId(tenantId, n), tenantId, n, seq: last.seq, hash: last.hash, holder: lease.holder, epoch: lease.epoch, link: { fromSeq: first.seq, ids } };
        if (await log.append(entry, false)) break;
        // Entry n exists: a take-over (this holder lost its lease), or entries this process missed.
        state = await log.resync(tenantId);
      }
      await insertChainRecords(chain, tenantId, records);
      await deleteUnlinked(tenantId, ids);
      await log.settle(tenantId, { n, seq: last.seq, hash: last.hash, holder: lease.holder, epoch: lease.epoch, complete: true });
      await claims.confirm(tenantId, n, takenOver);
      return true;
    },

    async findUnlinked(tenantId, id) {
      assertTenantId(tenantId);
      assertRecordId(id);
      const doc = await unlinked.findOne({ _id: recordIdDocumentId(tenantId, id) });
      return doc === null ? null : toUnlinkedRecord(doc);
    },

    async unlinkedSummary(tenantId) {
      assertTenantId(tenantId);
      const count = await unlinked.countDocuments({ tenantId });
      if (count === 0) return { count, oldestStoredAt: null };
      const oldest = await unlinked.findOne({ tenantId }, { sort: { storedAt: 1 }, projection: { storedAt: 1 } });
      return { count, oldestStoredAt: oldest?.storedAt ?? null };
    },

    async tenantsWaiting(storedBefore, limit) {
      assertPageSize(limit);
      const before = normaliseInstant(storedBefore, 'storedBefore');
      // FerretDB 1.24 has no $min in $group, and sorts by reading the whole collection: windows are
      // read unsorted (MongoDB walks the hinted index by storedAt; FerretDB returns documents as
      // they were inserted), each leaving out the tenants found before, and the tenants are put in
      // order of the oldest record seen here.
      const oldest = new Map<string, string>();
      for (;;) {
        const filter = oldest.size === 0 ? { storedAt: { $lt: before } } : { storedAt: { $lt: before }, tenantId: { $nin: [...oldest.keys()] } };
        const docs = await unlinked.find(filter, { projection: { tenantId: 1, storedAt: 1 } }).hint(UNLINKED_INDEXES.storedAt).limit(WAITING_WINDOW).toArray();
        for (const { tenantId, storedAt } of docs) {
          const seen = oldest.get(tenantId);
          if (seen === undefined || storedAt < seen) oldest.set(tenantId, storedAt);
        }
        if (oldest.size >= limit || docs.length < WAITING_WINDOW) break;
      }
      return [...oldest].sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit).map(([tenantId]) => tenantId);
    },
  };
}

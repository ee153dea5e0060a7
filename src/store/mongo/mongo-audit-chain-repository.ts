import type { Db, Filter } from 'mongodb';
import { AuditRecordCorruptError } from '../../audit/audit-chain-errors.js';
import type { AuditChainRepository, AuditRecord } from '../../audit/audit-chain-store.js';
import { assertPageSize, assertRecordId, assertTenantId, assertTypeAfter, normaliseAuditQuery, parsePayload } from '../store-rules.js';
import { auditDocumentId, COLLECTIONS, type AuditDocument } from './collections.js';
/** A chain record as stored (also written by the link repository). */
export function toAuditDocument(tenantId: string, r: AuditRecord): AuditDocument {
  return {
    _id: auditDocumentId(tenantId, r.seq),
    tenantId,
    seq: r.seq,
    id: r.id,
    eventType: r.eventType,
    policyModule: r.policyModule,
    policyFunction: r.policyFunction,
    actorId: r.actorId,
    occurredAt: r.occurredAt,
    payload: JSON.stringify(r.payload),
    hash: r.hash,
    previousHash: r.previousHash,
  };
}

function toRecord(d: AuditDocument): AuditRecord {
  return {
    id: d.id,
    seq: d.seq,
    eventType: d.eventType,
    policyModule: d.policyModule ?? null,
    policyFunction: d.policyFunction ?? null,
    actorId: d.actorId,
    occurredAt: d.occurredAt,
    payload: parsePayload(d.tenantId, d.seq, d.payload),
    hash: d.hash,
    previousHash: d.previousHash,
  };
}

export function createMongoAuditChainRepository(db: Db): AuditChainRepository {
  const collection = db.collection<AuditDocument>(COLLECTIONS.audit);
  /**
   * Highest seq seen to exist, per tenant: where the next head search starts. Only the seq is
   * kept; hashes always come from storage, so the head returned is what is stored.
   */
  const knownSeq = new Map<string, number>();

  function remember(tenantId: string, seq: number): void {
    if (seq > (knownSeq.get(tenantId) ?? 0)) knownSeq.set(tenantId, seq);
  }

  async function hashAt(tenantId: string, seq: number): Promise<string | undefined> {
    const doc = await collection.findOne({ _id: auditDocumentId(tenantId, seq) }, { projection: { hash: 1 } });
    return doc?.hash;
  }

  return {
    async head(tenantId) {
      assertTenantId(tenantId);
      // Seqs are contiguous from 1 (a link must extend the head), so "seq n exists" is true up to the
      // head and false after it: gallop from the highest seq known to exist, then bisect. Each
      // probe is an _id equality, which FerretDB serves from its index where a sorted query scans
      // the collection. A head that moved by k since last seen costs about 2·log2(k) + 1 probes.
      let low = knownSeq.get(tenantId) ?? 0;
      let lowHash: string | undefined;
      let high: number;
      for (let step = 1; ; step *= 2) {
        const found = await hashAt(tenantId, low + step);
        if (found === undefined) {
          high = low + step;
          break;
        }
        low += step;
        lowHash = found;
      }
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        const found = await hashAt(tenantId, middle);
        if (found === undefined) {
          high = middle;
        } else {
          low = middle;
          lowHash = found;
        }
      }
      if (low === 0) return null;
      lowHash ??= await hashAt(tenantId, low);
      if (lowHash === undefined) {
        throw new AuditRecordCorruptError(tenantId, low, 'a record seen earlier is gone (records must never be deleted)');
      }
      remember(tenantId, low);
      return { seq: low, hash: lowHash };
    },

    async list(tenantId, query) {
      assertTenantId(tenantId);
      const q = normaliseAuditQuery(query);
      const filter: Filter<AuditDocument> = { tenantId };
      if (q.eventType !== undefined) filter.eventType = q.eventType;
      if (q.policyModule !== undefined) filter.policyModule = q.policyModule;
      if (q.policyFunction !== undefined) filter.policyFunction = q.policyFunction;
      if (q.from !== undefined || q.to !== undefined) {
        filter.occurredAt = {
          ...(q.from !== undefined ? { $gte: q.from } : {}),
          ...(q.to !== undefined ? { $lte: q.to } : {}),
        };
      }
      if (q.before !== undefined) filter.seq = { $lt: q.before };
      const docs = await collection.find(filter).sort({ seq: -1 }).limit(q.limit).toArray();
      return docs.map(toRecord);
    },

    async listTypeAfter(tenantId, eventType, afterSeq, limit) {
      assertTenantId(tenantId);
      assertTypeAfter(eventType, afterSeq, limit);
      const docs = await collection.find({ tenantId, eventType, seq: { $gt: afterSeq } }).sort({ seq: 1 }).limit(limit).toArray();
      return docs.map(toRecord);
    },

    async *scan(tenantId, fromSeq, pageSize) {
      assertTenantId(tenantId);
      assertPageSize(pageSize);
      // One cursor fetched in batches of pageSize: memory stays bounded, and backends that sort
      // without an index (FerretDB) do it once instead of once per page.
      const cursor = collection
        .find({ tenantId, seq: { $gte: Math.max(1, Math.floor(fromSeq)) } })
        .sort({ seq: 1 })
        .batchSize(pageSize);
      try {
        for await (const doc of cursor) yield toRecord(doc);
      } finally {
        await cursor.close();
      }
    },

    async findById(tenantId, id) {
      assertTenantId(tenantId);
      assertRecordId(id);
      const doc = await collection.findOne({ tenantId, id });
      return doc === null ? null : toRecord(doc);
    },

    // Threads would need connections of their own: pages are read here and handed to them.
    pageSource() {
      return null;
    },
  };
}

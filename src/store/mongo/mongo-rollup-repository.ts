import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation, Db, Filter } from 'mongodb';
import type { RollupBucket, RollupIncrement, RollupRepository, RollupTotals } from '../../rollups/rollup-store.js';
import {
  compareBuckets,
  mergeIncrements,
  normaliseRollupQuery,
  normaliseRollupScan,
  rollupKey,
} from '../rollup-store-rules.js';
import { assertPageSize, assertTenantId, normaliseInstant } from '../store-rules.js';
import { POLICY_COLLECTIONS, type RollupDocument } from './mongo-policy-collections.js';

/**
 * FerretDB 1.24 applies `$inc` as read-modify-write without isolation: concurrent increments of one
 * document are lost (measured: 200 concurrent `$inc` of one counter left it at 5). So a bucket is
 * split into one document per writer (a repository instance), and each writer updates its
 * documents one batch at a time per tenant: no document ever sees two concurrent updates, and
 * `$inc`/`$max` upserts are exact on MongoDB and FerretDB alike. Readers sum the shares. A bucket
 * costs one document per process that evaluated it in that minute.
 */
/** Documents fetched per round trip when summing a window. */
const TOTALS_BATCH_SIZE = 5000;

type RollupShare = Omit<RollupDocument, '_id' | 'tenantId' | 'writer'>;

function bucketOf(share: RollupShare): RollupBucket {
  const { policyModule, policyFunction, version, minute, count, failures, timeSum, max } = share;
  return { policyModule, policyFunction, version, minute, count, failures, timeSum, max, timeSquares: share.timeSquares ?? 0 };
}

/** Adds another writer's share of the same bucket. */
function addShare(bucket: RollupBucket, share: RollupShare): void {
  bucket.count += share.count;
  bucket.failures += share.failures;
  bucket.timeSum += share.timeSum;
  bucket.timeSquares += share.timeSquares ?? 0;
  bucket.max = Math.max(bucket.max, share.max);
}

export function createMongoRollupRepository(db: Db, writer: string = randomUUID()): RollupRepository {
  const rollups = db.collection<RollupDocument>(POLICY_COLLECTIONS.rollups);
  /** The tail of each tenant's chain of writes: the next one starts when it settles. */
  const tails = new Map<string, Promise<unknown>>();

  function write(tenantId: string, increments: readonly RollupIncrement[]): Promise<void> {
    const operations: AnyBulkWriteOperation<RollupDocument>[] = increments.map((i) => ({
      updateOne: {
        filter: { _id: `${tenantId}:${rollupKey(i)}:${writer}` },
        update: {
          $inc: { count: i.count, failures: i.failures, timeSum: i.timeSum, timeSquares: i.timeSquares },
          $max: { max: i.max },
          $setOnInsert: {
            tenantId,
            policyModule: i.policyModule,
            policyFunction: i.policyFunction,
            version: i.version,
            minute: i.minute,
            writer,
          },
        },
        upsert: true,
      },
    }));
    const previous = tails.get(tenantId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(async () => {
      await rollups.bulkWrite(operations, { ordered: false });
    });
    tails.set(tenantId, run);
    // Forget a settled tail so the map holds only tenants with writes in flight.
    const forget = () => {
      if (tails.get(tenantId) === run) tails.delete(tenantId);
    };
    run.then(forget, forget);
    return run;
  }

  return {
    async add(tenantId, increments) {
      assertTenantId(tenantId);
      const merged = mergeIncrements(increments);
      if (merged.length > 0) await write(tenantId, merged);
    },

    async range(tenantId, query) {
      assertTenantId(tenantId);
      const q = normaliseRollupQuery(query);
      const filter: Filter<RollupDocument> = { tenantId, minute: { $gte: q.from, $lte: q.to } };
      if (q.policyModule !== undefined) filter.policyModule = q.policyModule;
      if (q.policyFunction !== undefined) filter.policyFunction = q.policyFunction;
      if (q.version !== undefined) filter.version = q.version;
      const buckets = new Map<string, RollupBucket>();
      for (const doc of await rollups.find(filter).toArray()) {
        const key = rollupKey(doc);
        const bucket = buckets.get(key);
        if (bucket === undefined) buckets.set(key, bucketOf(doc));
        else addShare(bucket, doc);
      }
      return [...buckets.values()].sort(compareBuckets);
    },

    async *scan(tenantId, query, pageSize) {
      assertTenantId(tenantId);
      assertPageSize(pageSize);
      const q = normaliseRollupScan(query);
      const filter: Filter<RollupDocument> = {
        tenantId,
        policyModule: q.policyModule,
        policyFunction: q.policyFunction,
        minute: { $gte: q.from, $lte: q.to },
      };
      if (q.version !== undefined) filter.version = q.version;
      // One cursor fetched in batches of pageSize, in the order of the (tenant, module, function,
      // version, minute) index. A bucket's shares sort next to each other: summed, then yielded.
      const cursor = rollups
        .find(filter)
        .project<RollupShare>({ _id: 0, tenantId: 0, writer: 0 })
        .sort({ version: 1, minute: 1 })
        .batchSize(pageSize);
      let pending: RollupBucket | undefined;
      try {
        for await (const share of cursor) {
          if (pending !== undefined && pending.version === share.version && pending.minute === share.minute) {
            addShare(pending, share);
            continue;
          }
          if (pending !== undefined) yield pending;
          pending = bucketOf(share);
        }
        if (pending !== undefined) yield pending;
      } finally {
        await cursor.close();
      }
    },

    async totals(tenantId, query) {
      assertTenantId(tenantId);
      const q = normaliseRollupQuery(query);
      const filter: Filter<RollupDocument> = { tenantId, minute: { $gte: q.from, $lte: q.to } };
      if (q.policyModule !== undefined) filter.policyModule = q.policyModule;
      if (q.policyFunction !== undefined) filter.policyFunction = q.policyFunction;
      if (q.version !== undefined) filter.version = q.version;
      // Fetched in batches, each a round trip: the event loop serves others in between.
      const cursor = rollups
        .find(filter)
        .project<RollupShare>({ _id: 0, tenantId: 0, writer: 0 })
        .batchSize(TOTALS_BATCH_SIZE);
      const totals = new Map<string, { total: RollupTotals; minutes: Set<string> }>();
      // Summed here rather than in an aggregation (FerretDB 1.24 lacks parts of $group); a bucket's
      // shares (one per writer) count as one bucket.
      for await (const doc of cursor) {
        const key = `${doc.policyModule}:${doc.policyFunction}:${doc.version}`;
        let entry = totals.get(key);
        if (entry === undefined) {
          const { policyModule, policyFunction, version } = doc;
          const total = { policyModule, policyFunction, version, count: 0, failures: 0, timeSum: 0, timeSquares: 0, max: 0, buckets: 0 };
          entry = { total, minutes: new Set() };
          totals.set(key, entry);
        }
        const { total } = entry;
        total.count += doc.count;
        total.failures += doc.failures;
        total.timeSum += doc.timeSum;
        total.timeSquares += doc.timeSquares ?? 0;
        total.max = Math.max(total.max, doc.max);
        entry.minutes.add(doc.minute);
      }
      return [...totals.values()].map(({ total, minutes }) => ({ ...total, buckets: minutes.size }));
    },

    async tenantsWithBuckets(from, to) {
      const window = { $gte: normaliseInstant(from, 'from'), $lte: normaliseInstant(to, 'to') };
      const tenants = await rollups.distinct('tenantId', { minute: window });
      return (tenants as string[]).sort();
    },
  };
}

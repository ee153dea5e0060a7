import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation, Db, Filter } from 'mongodb';
import type { RollupBucket, RollupIncrement, RollupRepository } from '../ports.js';
import { compareBuckets, mergeIncrements, normaliseRollupQuery, rollupKey } from '../policy-store-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { POLICY_COLLECTIONS, type RollupDocument } from './mongo-policy-collections.js';

/**
 * FerretDB 1.24 applies `$inc` as read-modify-write without isolation: concurrent increments of one
 * document are lost (measured: 200 concurrent `$inc` of one counter left it at 5). So a bucket is
 * split into one document per writer (a repository instance), and each writer updates its
 * documents one batch at a time per tenant: no document ever sees two concurrent updates, and
 * `$inc`/`$max` upserts are exact on MongoDB and FerretDB alike. Readers sum the shares. A bucket
 * costs one document per process that evaluated it in that minute.
 */
export function createMongoRollupRepository(db: Db, writer: string = randomUUID()): RollupRepository {
  const rollups = db.collection<RollupDocument>(POLICY_COLLECTIONS.rollups);
  /** The tail of each tenant's chain of writes: the next one starts when it settles. */
  const tails = new Map<string, Promise<unknown>>();

  function write(tenantId: string, increments: readonly RollupIncrement[]): Promise<void> {
    const operations: AnyBulkWriteOperation<RollupDocument>[] = increments.map((i) => ({
      updateOne: {
        filter: { _id: `${tenantId}:${rollupKey(i)}:${writer}` },
        update: {
          $inc: { count: i.count, failures: i.failures, timeSum: i.timeSum },
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
        if (bucket === undefined) {
          buckets.set(key, {
            policyModule: doc.policyModule,
            policyFunction: doc.policyFunction,
            version: doc.version,
            minute: doc.minute,
            count: doc.count,
            failures: doc.failures,
            timeSum: doc.timeSum,
            max: doc.max,
          });
        } else {
          bucket.count += doc.count;
          bucket.failures += doc.failures;
          bucket.timeSum += doc.timeSum;
          bucket.max = Math.max(bucket.max, doc.max);
        }
      }
      return [...buckets.values()].sort(compareBuckets);
    },

    async tenantsWithBuckets(from, to) {
      const window = { $gte: normaliseInstant(from, 'from'), $lte: normaliseInstant(to, 'to') };
      const tenants = await rollups.distinct('tenantId', { minute: window });
      return (tenants as string[]).sort();
    },
  };
}

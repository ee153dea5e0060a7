import { MongoServerError, type Db } from 'mongodb';
import type { IdempotencyRepository } from '../ports.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { COLLECTIONS, type IdempotencyDocument } from './collections.js';

const DUPLICATE_KEY = 11000;
const MAX_ATTEMPTS = 8;

/**
 * First writer wins through the unique (tenantId, key) index alone. An expired record blocking the
 * key is deleted by its own `_id` and the insert retried; whoever inserts first after that wins.
 */
export function createMongoIdempotencyRepository(db: Db): IdempotencyRepository {
  const collection = db.collection<IdempotencyDocument>(COLLECTIONS.idempotency);

  return {
    async get(tenantId, key, now) {
      assertTenantId(tenantId);
      const doc = await collection.findOne({ tenantId, key });
      // TTL may be unenforced or late: expiry is decided here.
      if (doc === null || doc.expiresAt.getTime() <= now.getTime()) return null;
      return {
        key: doc.key,
        requestHash: doc.requestHash,
        status: doc.status,
        body: JSON.parse(doc.body) as unknown,
        createdAt: doc.createdAt.toISOString(),
        expiresAt: doc.expiresAt.toISOString(),
      };
    },

    async putIfAbsent(tenantId, record, now) {
      assertTenantId(tenantId);
      const doc: IdempotencyDocument = {
        tenantId,
        key: record.key,
        requestHash: record.requestHash,
        status: record.status,
        body: JSON.stringify(record.body ?? null),
        createdAt: new Date(normaliseInstant(record.createdAt, 'createdAt')),
        expiresAt: new Date(normaliseInstant(record.expiresAt, 'expiresAt')),
      };
      // Each round either settles or removes one expired record; a few rounds cover any real race.
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        try {
          // A copy: the driver writes the generated _id into the object it is given.
          await collection.insertOne({ ...doc });
          return true;
        } catch (error) {
          if (!(error instanceof MongoServerError) || error.code !== DUPLICATE_KEY) throw error;
        }
        const existing = await collection.findOne({ tenantId, key: record.key });
        if (existing === null) continue;
        if (existing.expiresAt.getTime() > now.getTime()) return false;
        await collection.deleteOne({ _id: existing._id });
      }
      throw new Error(`idempotency key \`${record.key}\` stayed contended after ${MAX_ATTEMPTS} attempts`);
    },
  };
}

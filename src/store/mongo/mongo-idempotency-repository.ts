import type { Db } from 'mongodb';
import type { IdempotencyRepository } from '../../idempotency/idempotency-store.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { COLLECTIONS, type IdempotencyDocument } from './collections.js';
import { isDuplicateKey } from './duplicate-key.js';

const MAX_ATTEMPTS = 8;

/**
 * First writer wins through the unique (tenantId, key) index alone. An expired record blocking the
 * key is deleted by its own `_id` and the insert retried; whoever inserts first after that wins.
 * Completing and releasing match the owner, so a request whose lease ran out (and whose key another
 * request took) changes nothing; only that request ever writes its record, one write at a time.
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
        owner: doc.owner ?? '',
        response: doc.status === null || doc.status === undefined ? null : { status: doc.status, body: JSON.parse(doc.body ?? 'null') as unknown },
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
        owner: record.owner,
        status: record.response === null ? null : record.response.status,
        body: record.response === null ? null : JSON.stringify(record.response.body ?? null),
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
          if (!isDuplicateKey(error)) throw error;
        }
        const existing = await collection.findOne({ tenantId, key: record.key });
        if (existing === null) continue;
        if (existing.expiresAt.getTime() > now.getTime()) return false;
        await collection.deleteOne({ _id: existing._id });
      }
      throw new Error(`idempotency key \`${record.key}\` stayed contended after ${MAX_ATTEMPTS} attempts`);
    },

    async complete(tenantId, key, owner, response, expiresAt) {
      assertTenantId(tenantId);
      const result = await collection.updateOne(
        { tenantId, key, owner, status: null },
        { $set: { status: response.status, body: JSON.stringify(response.body ?? null), expiresAt: new Date(normaliseInstant(expiresAt, 'expiresAt')) } },
      );
      return result.matchedCount === 1;
    },

    async release(tenantId, key, owner) {
      assertTenantId(tenantId);
      await collection.deleteOne({ tenantId, key, owner, status: null });
    },
  };
}

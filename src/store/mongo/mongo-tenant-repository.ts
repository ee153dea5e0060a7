import { MongoServerError, type Db } from 'mongodb';
import type { SigningSecret, TenantRepository } from '../../tenants/tenant-store.js';
import { assertTenantId } from '../store-rules.js';
import { COLLECTIONS, type SecretDocument, type TenantDocument } from './collections.js';

const DUPLICATE_KEY = 11000;

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/**
 * Insert-only, so every step is atomic on backends without multi-document transactions or
 * atomic read-modify-write updates: a tenant and its first secret are one document, and each later
 * secret is its own document keyed by version.
 */
export function createMongoTenantRepository(db: Db): TenantRepository {
  const tenants = db.collection<TenantDocument>(COLLECTIONS.tenants);
  const secrets = db.collection<SecretDocument>(COLLECTIONS.secrets);

  return {
    async create(tenant, firstSecret) {
      assertTenantId(tenant.tenantId);
      try {
        await tenants.insertOne({
          _id: tenant.tenantId,
          createdAt: tenant.createdAt,
          firstSecret: { version: firstSecret.version, secret: firstSecret.secret, createdAt: firstSecret.createdAt },
        });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    async get(tenantId) {
      assertTenantId(tenantId);
      const doc = await tenants.findOne({ _id: tenantId });
      return doc === null ? null : { tenantId: doc._id, createdAt: doc.createdAt };
    },

    async addSecret(tenantId, secret) {
      assertTenantId(tenantId);
      const tenant = await tenants.findOne({ _id: tenantId });
      // The first secret never changes, so comparing with it outside a transaction is safe.
      if (tenant === null || tenant.firstSecret.version === secret.version) return false;
      try {
        await secrets.insertOne({
          _id: `${tenantId}:${secret.version}`,
          tenantId,
          version: secret.version,
          secret: secret.secret,
          createdAt: secret.createdAt,
        });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    async activeSecrets(tenantId) {
      assertTenantId(tenantId);
      const tenant = await tenants.findOne({ _id: tenantId });
      if (tenant === null) return [];
      const later = await secrets.find({ tenantId }).sort({ version: -1 }).limit(2).toArray();
      const all: SigningSecret[] = [
        ...later.map((d) => ({ version: d.version, secret: d.secret, createdAt: d.createdAt })),
        { ...tenant.firstSecret },
      ];
      return all.sort((a, b) => b.version - a.version).slice(0, 2);
    },
  };
}

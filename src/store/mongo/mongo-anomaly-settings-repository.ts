import type { Db } from 'mongodb';
import type { AnomalySettingsRepository } from '../../anomalies/anomaly-settings-store.js';
import { assertSettingsRecord } from '../anomaly-store-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { isDuplicateKey } from './duplicate-key.js';
import { ANOMALY_COLLECTIONS, type AnomalySettingsDocument } from './mongo-anomaly-collections.js';

const MAX_ATTEMPTS = 4;

export function createMongoAnomalySettingsRepository(db: Db): AnomalySettingsRepository {
  const settings = db.collection<AnomalySettingsDocument>(ANOMALY_COLLECTIONS.settings);
  return {
    async get(tenantId) {
      assertTenantId(tenantId);
      const doc = await settings.findOne({ _id: tenantId });
      if (doc === null) return null;
      return { values: JSON.parse(doc.values) as Record<string, number>, actorId: doc.actorId, updatedAt: doc.updatedAt };
    },
    async put(tenantId, record) {
      assertTenantId(tenantId);
      assertSettingsRecord(record);
      const replacement = { values: JSON.stringify(record.values), actorId: record.actorId, updatedAt: normaliseInstant(record.updatedAt, 'updatedAt') };
      // Two first upserts of one tenant can both try to insert; the loser retries as an update.
      for (let attempt = 1; ; attempt += 1) {
        try {
          await settings.replaceOne({ _id: tenantId }, replacement, { upsert: true });
          return;
        } catch (error) {
          if (!isDuplicateKey(error) || attempt >= MAX_ATTEMPTS) throw error;
        }
      }
    },
  };
}

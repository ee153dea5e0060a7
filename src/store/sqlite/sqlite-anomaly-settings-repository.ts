import type { Database } from 'better-sqlite3';
import type { AnomalySettingsRepository } from '../../anomalies/anomaly-settings-store.js';
import { assertSettingsRecord } from '../anomaly-store-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';

export function createSqliteAnomalySettingsRepository(db: Database): AnomalySettingsRepository {
  const select = db.prepare<[string], { settings: string; actor_id: string; updated_at: string }>(
    'SELECT settings, actor_id, updated_at FROM anomaly_settings WHERE tenant_id = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO anomaly_settings (tenant_id, settings, actor_id, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET settings = excluded.settings, actor_id = excluded.actor_id, updated_at = excluded.updated_at`,
  );
  return {
    async get(tenantId) {
      assertTenantId(tenantId);
      const row = select.get(tenantId);
      if (row === undefined) return null;
      return { values: JSON.parse(row.settings) as Record<string, number>, actorId: row.actor_id, updatedAt: row.updated_at };
    },
    async put(tenantId, record) {
      assertTenantId(tenantId);
      assertSettingsRecord(record);
      upsert.run(tenantId, JSON.stringify(record.values), record.actorId, normaliseInstant(record.updatedAt, 'updatedAt'));
    },
  };
}

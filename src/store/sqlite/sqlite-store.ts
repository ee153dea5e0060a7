import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { AuditChainRepository } from '../../audit/audit-chain-store.js';
import type { IdempotencyRepository } from '../../idempotency/idempotency-store.js';
import type { TenantRepository } from '../../tenants/tenant-store.js';
import type { Store } from '../store.js';
import { migrate } from './migrate.js';
import { createSqliteAnomalyRepository } from './sqlite-anomaly-repository.js';
import { createSqliteAnomalySettingsRepository } from './sqlite-anomaly-settings-repository.js';
import { createSqliteAuditChainRepository } from './sqlite-audit-chain-repository.js';
import { createSqliteAuditLinkRepository } from './sqlite-audit-link-repository.js';
import { createSqliteIdempotencyRepository } from './sqlite-idempotency-repository.js';
import { createSqlitePolicyRepository } from './sqlite-policy-repository.js';
import { createSqliteRollupRepository } from './sqlite-rollup-repository.js';
import { createSqliteTenantRepository } from './sqlite-tenant-repository.js';
import { createSqliteWebhookRepository } from './sqlite-webhook-repository.js';
import { createSqliteWorkflowRepository } from './sqlite-workflow-repository.js';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** The underlying connection, for maintenance scripts and tests; not part of the Store port. */
  readonly raw: Database;
}

export interface SqliteStoreOptions {
  /** How long a writer waits for another process's write lock before failing. */
  busyTimeoutMs?: number;
}

/** Opens (creating the file and its directory when absent) and migrates an SQLite store. */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new BetterSqlite3(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 10_000))}`);
    db.pragma('journal_mode = WAL');
    // Under WAL, NORMAL keeps commits atomic; a power loss may drop the newest ones, never corrupt.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // 64 MiB of page cache: appends touch four B-trees (the table and its three indexes).
    db.pragma('cache_size = -65536');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const audit: AuditChainRepository = createSqliteAuditChainRepository(db);
  const tenants: TenantRepository = createSqliteTenantRepository(db);
  const idempotency: IdempotencyRepository = createSqliteIdempotencyRepository(db);
  return {
    kind: 'sqlite',
    raw: db,
    audit,
    auditLinks: createSqliteAuditLinkRepository(db),
    tenants,
    idempotency,
    policies: createSqlitePolicyRepository(db),
    rollups: createSqliteRollupRepository(db),
    anomalies: createSqliteAnomalyRepository(db),
    anomalySettings: createSqliteAnomalySettingsRepository(db),
    workflows: createSqliteWorkflowRepository(db),
    webhooks: createSqliteWebhookRepository(db),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

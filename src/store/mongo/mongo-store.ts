import { MongoClient, type Db } from 'mongodb';
import type { Store } from '../store.js';
import { ensureIndexes } from './collections.js';
import { ensureAnomalyIndexes } from './mongo-anomaly-collections.js';
import { createMongoAnomalyRepository } from './mongo-anomaly-repository.js';
import { createMongoAnomalySettingsRepository } from './mongo-anomaly-settings-repository.js';
import { createMongoAuditChainRepository } from './mongo-audit-chain-repository.js';
import { createMongoAuditLinkRepository } from './mongo-audit-link-repository.js';
import { createMongoIdempotencyRepository } from './mongo-idempotency-repository.js';
import { backfillOpenMarks } from './mongo-open-marks-backfill.js';
import { backfillWorkflowSummaries } from './mongo-workflow-summaries-backfill.js';
import { ensurePolicyIndexes } from './mongo-policy-collections.js';
import { createMongoPolicyRepository } from './mongo-policy-repository.js';
import { createMongoRollupRepository } from './mongo-rollup-repository.js';
import { createMongoTenantRepository } from './mongo-tenant-repository.js';
import { ensureWebhookIndexes } from './mongo-webhook-collections.js';
import { createMongoWebhookRepository } from './mongo-webhook-repository.js';
import { ensureWorkflowIndexes } from './mongo-workflow-collections.js';
import { createMongoWorkflowRepository } from './mongo-workflow-repository.js';

export interface MongoStore extends Store {
  readonly kind: 'mongo';
  /** The driver objects, for maintenance scripts and tests; not part of the Store port. */
  readonly raw: { readonly client: MongoClient; readonly db: Db };
  /** False on backends that refuse TTL indexes; expiry is checked on read either way. */
  readonly ttlEnforced: boolean;
}

export interface MongoStoreOptions {
  url: string;
  /** Defaults to the database named in the URL, else `policy_engine`. */
  database?: string;
  /** How long operations wait before they fail (then the request gets 503); a value in the URL wins. */
  timeouts?: MongoTimeouts;
}

export interface MongoTimeouts {
  /** For a reachable server (none answers: the store is down). */
  serverSelectionMs?: number;
  /** For a new connection's TCP and handshake (a server that accepts but does not answer). */
  connectMs?: number;
  /** For the answer on an open connection (a frozen server, a network that drops packets). */
  socketMs?: number;
}

const DRIVER_TIMEOUT_OPTIONS = {
  serverSelectionMs: 'serverSelectionTimeoutMS',
  connectMs: 'connectTimeoutMS',
  socketMs: 'socketTimeoutMS',
} as const satisfies Record<keyof MongoTimeouts, string>;

/** The driver options for `timeouts`, leaving out each one the URL sets: the operator's explicit choice wins. */
function driverTimeouts(url: string, timeouts: MongoTimeouts = {}): Record<string, number> {
  const options: Record<string, number> = {};
  for (const [ours, driver] of Object.entries(DRIVER_TIMEOUT_OPTIONS)) {
    const value = timeouts[ours as keyof MongoTimeouts];
    if (value !== undefined && !new RegExp(`[?&]${driver}=`, 'i').test(url)) options[driver] = value;
  }
  return options;
}

export const DEFAULT_MONGODB_DATABASE = 'policy_engine';

/** The path segment of a mongodb:// URL names its default database. */
export function databaseFromUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^/?#]+)/.exec(url);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

/** Connects, checks the server answers and creates the indexes (idempotent). */
export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.url, driverTimeouts(options.url, options.timeouts));
  await client.connect();
  try {
    const db = client.db(options.database ?? databaseFromUrl(options.url) ?? DEFAULT_MONGODB_DATABASE);
    const { ttlEnforced } = await ensureIndexes(db);
    await ensurePolicyIndexes(db);
    await ensureAnomalyIndexes(db);
    await backfillOpenMarks(db);
    await ensureWorkflowIndexes(db);
    await backfillWorkflowSummaries(db);
    await ensureWebhookIndexes(db);
    return {
      kind: 'mongo',
      raw: { client, db },
      ttlEnforced,
      audit: createMongoAuditChainRepository(db),
      auditLinks: createMongoAuditLinkRepository(db),
      tenants: createMongoTenantRepository(db),
      idempotency: createMongoIdempotencyRepository(db),
      policies: createMongoPolicyRepository(db),
      rollups: createMongoRollupRepository(db),
      anomalies: createMongoAnomalyRepository(db),
      anomalySettings: createMongoAnomalySettingsRepository(db),
      workflows: createMongoWorkflowRepository(db),
      webhooks: createMongoWebhookRepository(db),
      async ping() {
        await db.command({ ping: 1 });
      },
      async close() {
        await client.close();
      },
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

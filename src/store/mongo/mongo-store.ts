import { MongoClient, type Db } from 'mongodb';
import type { Store } from '../ports.js';
import { ensureIndexes } from './collections.js';
import { ensureAnomalyIndexes } from './mongo-anomaly-collections.js';
import { createMongoAnomalyRepository } from './mongo-anomaly-repository.js';
import { createMongoAnomalySettingsRepository } from './mongo-anomaly-settings-repository.js';
import { createMongoAuditChainRepository } from './mongo-audit-chain-repository.js';
import { createMongoIdempotencyRepository } from './mongo-idempotency-repository.js';
import { ensurePolicyIndexes } from './mongo-policy-collections.js';
import { createMongoPolicyRepository } from './mongo-policy-repository.js';
import { createMongoRollupRepository } from './mongo-rollup-repository.js';
import { createMongoTenantRepository } from './mongo-tenant-repository.js';
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
  /** Milliseconds an operation waits for a reachable server before it fails (a value in the URL wins). */
  serverSelectionTimeoutMs?: number;
}

export const DEFAULT_MONGODB_DATABASE = 'policy_engine';

/** The path segment of a mongodb:// URL names its default database. */
export function databaseFromUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^/?#]+)/.exec(url);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

/** Connects, checks the server answers and creates the indexes (idempotent). */
export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  // A timeout written in the URL is the operator's explicit choice and wins over the configured one.
  const inUrl = /[?&]serverSelectionTimeoutMS=/i.test(options.url);
  const client = new MongoClient(
    options.url,
    options.serverSelectionTimeoutMs === undefined || inUrl ? {} : { serverSelectionTimeoutMS: options.serverSelectionTimeoutMs },
  );
  await client.connect();
  try {
    const db = client.db(options.database ?? databaseFromUrl(options.url) ?? DEFAULT_MONGODB_DATABASE);
    const { ttlEnforced } = await ensureIndexes(db);
    await ensurePolicyIndexes(db);
    await ensureAnomalyIndexes(db);
    await ensureWorkflowIndexes(db);
    return {
      kind: 'mongo',
      raw: { client, db },
      ttlEnforced,
      audit: createMongoAuditChainRepository(db),
      tenants: createMongoTenantRepository(db),
      idempotency: createMongoIdempotencyRepository(db),
      policies: createMongoPolicyRepository(db),
      rollups: createMongoRollupRepository(db),
      anomalies: createMongoAnomalyRepository(db),
      anomalySettings: createMongoAnomalySettingsRepository(db),
      workflows: createMongoWorkflowRepository(db),
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

import { openMongoStore, type MongoTimeouts } from './mongo/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './store.js';

export type { Store } from './store.js';
export { StoreArgumentError } from './store-argument-error.js';
export { isStoreUnreachable } from './store-unreachable.js';
export { openSqliteStore, migrate, MigrationError, MIGRATIONS, type SqliteStore } from './sqlite/index.js';
export { openMongoStore, DEFAULT_MONGODB_DATABASE, COLLECTIONS, type MongoStore, type MongoTimeouts } from './mongo/index.js';

export interface OpenStoreOptions {
  /** When set, the MongoDB adapter is used and `sqlitePath` is ignored. */
  mongodbUrl?: string;
  mongodbDatabase?: string;
  /** How long MongoDB operations wait before they fail (then: 503, retry). */
  mongodbTimeouts?: MongoTimeouts;
  sqlitePath: string;
}

/** The store for this process: MongoDB when a URL is configured, else the embedded SQLite file. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.mongodbUrl !== undefined && options.mongodbUrl !== '') {
    return openMongoStore({
      url: options.mongodbUrl,
      ...(options.mongodbDatabase !== undefined ? { database: options.mongodbDatabase } : {}),
      ...(options.mongodbTimeouts !== undefined ? { timeouts: options.mongodbTimeouts } : {}),
    });
  }
  return openSqliteStore(options.sqlitePath);
}

export { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { migrate, MigrationError } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';

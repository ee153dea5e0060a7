import type { Database } from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, each in its own IMMEDIATE
 * transaction so that two processes opening the same file at once apply every step exactly once.
 * Returns the versions applied by this call.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError(`migration list must be numbered 1, 2, …: found ${migration.version} at position ${index + 1}`);
    }
  });
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at TEXT    NOT NULL
  )`);
  const current = db.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const known = current.get()?.version ?? 0;
  if (known > migrations.length) {
    throw new MigrationError(`database schema version ${known} is newer than this build (${migrations.length})`);
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    const step = db.transaction(() => {
      if ((current.get()?.version ?? 0) >= migration.version) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      return true;
    });
    if (step.immediate()) applied.push(migration.version);
  }
  return applied;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, MigrationError, openSqliteStore } from '../index.js';

describe('SQLite migrations', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pe-migrate-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('are numbered 1, 2, … without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('are applied when a store opens, creating the file and its folder, in WAL mode', async () => {
    const path = join(dir, 'nested', 'policy-engine.db');
    const store = await openSqliteStore(path);
    expect(store.raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const applied = store.raw.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(applied).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    const tables = store.raw
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => (row as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining(['audit_records', 'tenants', 'tenant_secrets', 'idempotency_records', 'schema_migrations']),
    );
    await store.close();
  });

  it('apply nothing on a second open', async () => {
    const path = join(dir, 'policy-engine.db');
    await (await openSqliteStore(path)).close();
    const db = new BetterSqlite3(path);
    expect(migrate(db)).toEqual([]);
    db.close();
  });

  it('apply only the steps a database lacks', () => {
    const db = new BetterSqlite3(join(dir, 'steps.db'));
    const first = { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' };
    const second = { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' };
    expect(migrate(db, [first])).toEqual([1]);
    expect(migrate(db, [first, second])).toEqual([2]);
    expect(migrate(db, [first, second])).toEqual([]);
    db.close();
  });

  it('leave nothing behind from a failing step', () => {
    const db = new BetterSqlite3(join(dir, 'failing.db'));
    const broken = { version: 1, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); CREATE TABLE half (y INTEGER);' };
    expect(() => migrate(db, [broken])).toThrow(/already exists/);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuse a database written by a newer build', () => {
    const db = new BetterSqlite3(join(dir, 'newer.db'));
    migrate(db);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')").run();
    expect(() => migrate(db)).toThrow(MigrationError);
    db.close();
  });

  it('refuse a misnumbered list', () => {
    const db = new BetterSqlite3(':memory:');
    expect(() => migrate(db, [{ version: 2, name: 'x', sql: '' }])).toThrow(MigrationError);
    db.close();
  });
});

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

  it('leave registry rows stored before the audit outbox owing nothing, and their content immutable', async () => {
    const path = join(dir, 'outbox.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 4));
    old
      .prepare(
        `INSERT INTO policy_versions (tenant_id, policy_module, version, source, locale, source_hash, functions, actor_id, created_at)
         VALUES ('acme', 'm.x', 1, 'Module m.x.', 'en-US', 'h', '[]', 'alice', '2026-01-01T00:00:00.000Z')`,
      )
      .run();
    old.close();
    const store = await openSqliteStore(path);
    expect(await store.policies.owedAudits('2999-01-01T00:00:00.000Z', 100)).toEqual([]);
    expect(await store.policies.claimAudit('acme', { kind: 'version', policyModule: 'm.x', version: 1 }, { owner: 'p', until: '2999-01-01T00:00:00.000Z' }, '2998-01-01T00:00:00.000Z')).toBe(false);
    expect(() => store.raw.prepare("UPDATE policy_versions SET audited_at = 'x'").run()).toThrow(/immutable/);
    // An owed row: its claim and mark may change, its content never, and nothing once audited.
    await store.policies.insertVersion(
      'acme',
      { policyModule: 'm.x', version: 2, source: 's', locale: 'en-US', sourceHash: 'h', functions: [], actorId: 'a', createdAt: '2026-01-02T00:00:00.000Z' },
      { recordId: 'r2', claim: { owner: 'p', until: '2026-01-02T00:01:00.000Z' } },
    );
    expect(() => store.raw.prepare("UPDATE policy_versions SET source = 'changed' WHERE version = 2").run()).toThrow(/immutable/);
    store.raw.prepare("UPDATE policy_versions SET audit_claimed_by = 'q' WHERE version = 2").run();
    await store.policies.markAudited('acme', { kind: 'version', policyModule: 'm.x', version: 2 }, '2026-01-02T00:00:30.000Z');
    expect(() => store.raw.prepare('UPDATE policy_versions SET audited_at = NULL WHERE version = 2').run()).toThrow(/immutable/);
    await store.close();
  });

  it('leave anomaly status changes stored before they owed records owing nothing, and append-only', async () => {
    const path = join(dir, 'transitions.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 6));
    old
      .prepare(
        `INSERT INTO anomalies (tenant_id, id, type, policy_module, policy_function, version, occurrence, detected_at, observation)
         VALUES ('acme', 'a-1', 'ZOMBIE_VERSION', 'm.x', 'r', 1, 1, '2026-01-01T00:00:00.000Z', '{}')`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO anomaly_transitions (tenant_id, anomaly_id, seq, from_status, to_status, note, actor_id, occurred_at)
         VALUES ('acme', 'a-1', 1, 'OPEN', 'DISMISSED', 'old', 'alice', '2026-01-01T01:00:00.000Z')`,
      )
      .run();
    old.close();
    const store = await openSqliteStore(path);
    expect(await store.anomalies.owedAudits('2999-01-01T00:00:00.000Z', 100)).toEqual([]);
    expect(await store.anomalies.transitions('acme', 'a-1')).toEqual([
      { anomalyId: 'a-1', seq: 1, from: 'OPEN', to: 'DISMISSED', note: 'old', actorId: 'alice', occurredAt: '2026-01-01T01:00:00.000Z' },
    ]);
    const claim = { owner: 'p', until: '2999-01-01T00:00:00.000Z' };
    expect(await store.anomalies.claimAudit('acme', { kind: 'transition', anomalyId: 'a-1', seq: 1 }, claim, '2998-01-01T00:00:00.000Z')).toBe(false);
    expect(() => store.raw.prepare("UPDATE anomaly_transitions SET audited_at = 'x'").run()).toThrow(/append-only/);
    // An owed change: its claim and mark may change, its content never, and nothing once audited.
    const change = { anomalyId: 'a-1', seq: 2, from: 'DISMISSED' as const, to: 'OPEN' as const, note: null, actorId: 'bob', occurredAt: '2026-01-02T00:00:00.000Z' };
    await store.anomalies.appendTransition('acme', change, { recordId: 'r2', claim: { owner: 'p', until: '2026-01-02T00:01:00.000Z' } });
    expect(() => store.raw.prepare("UPDATE anomaly_transitions SET note = 'changed' WHERE seq = 2").run()).toThrow(/append-only/);
    expect(() => store.raw.prepare("UPDATE anomaly_transitions SET request_ref = 'r' WHERE seq = 2").run()).toThrow(/append-only/);
    store.raw.prepare("UPDATE anomaly_transitions SET audit_claimed_by = 'q' WHERE seq = 2").run();
    await store.anomalies.markAudited('acme', { kind: 'transition', anomalyId: 'a-1', seq: 2 }, '2026-01-02T00:00:30.000Z');
    expect(() => store.raw.prepare('UPDATE anomaly_transitions SET audited_at = NULL WHERE seq = 2').run()).toThrow(/append-only/);
    expect(() => store.raw.prepare('DELETE FROM anomaly_transitions WHERE seq = 2').run()).toThrow(/append-only/);
    await store.close();
  });

  it('leave anomalies stored before they owed their detection record owing nothing; an owed one keeps its detection', async () => {
    const path = join(dir, 'detections.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 7));
    old
      .prepare(
        `INSERT INTO anomalies (tenant_id, id, type, policy_module, policy_function, version, occurrence, detected_at, observation)
         VALUES ('acme', 'a-1', 'ZOMBIE_VERSION', 'm.x', 'r', 1, 1, '2026-01-01T00:00:00.000Z', '{}')`,
      )
      .run();
    old.close();
    const store = await openSqliteStore(path);
    expect(await store.anomalies.owedAudits('2999-01-01T00:00:00.000Z', 100)).toEqual([]);
    expect(await store.anomalies.asDetected('acme', 'a-1')).toBeNull();
    expect(await store.anomalies.get('acme', 'a-1')).toMatchObject({ id: 'a-1', status: 'OPEN' });
    expect(() => store.raw.prepare("UPDATE anomalies SET audited_at = 'x'").run()).toThrow(/settled/);
    // An owed detection: its claim and mark may change, and its observation (a later round); never
    // its identity or what it was detected with; nothing of the record once it is audited.
    const observation = { observedAt: '2026-01-02T00:00:00.000Z', severity: 'LOW' as const, summary: 's', metrics: {}, recommendedActions: [] };
    const anomaly = { type: 'ZOMBIE_VERSION' as const, policyModule: 'm.x', policyFunction: 'r', version: 2, id: 'a-2', occurrence: 1, detectedAt: '2026-01-02T00:00:00.000Z', observation, verification: null };
    await store.anomalies.insert('acme', anomaly, { recordId: 'r2', claim: { owner: 'p', until: '2026-01-02T00:01:00.000Z' } });
    expect(() => store.raw.prepare("UPDATE anomalies SET detected_at = 'x' WHERE id = 'a-2'").run()).toThrow(/immutable/);
    expect(() => store.raw.prepare("UPDATE anomalies SET detected_observation = '{}' WHERE id = 'a-2'").run()).toThrow(/immutable/);
    store.raw.prepare("UPDATE anomalies SET audit_claimed_by = 'q', observation = '{}' WHERE id = 'a-2'").run();
    await store.anomalies.markAudited('acme', { kind: 'detection', anomalyId: 'a-2' }, '2026-01-02T00:00:30.000Z');
    expect(() => store.raw.prepare("UPDATE anomalies SET audited_at = NULL WHERE id = 'a-2'").run()).toThrow(/settled/);
    expect(await store.anomalies.asDetected('acme', 'a-2')).toEqual(anomaly);
    await store.close();
  });

  it('index the rules and rule counts of versions stored before the rule list, and keep them immutable', async () => {
    const path = join(dir, 'rules.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 8));
    const functions = (...names: string[]) => JSON.stringify(names.map((name) => ({ name, params: [], returnType: 'Int' })));
    const insert = old.prepare(
      `INSERT INTO policy_versions (tenant_id, policy_module, version, source, locale, source_hash, functions, actor_id, created_at, audit_record_id, audit_claimed_by, audit_claimed_until)
       VALUES ('acme', ?, ?, 'Module m.', 'en-US', 'h', ?, 'alice', '2026-01-01T00:00:00.000Z', ?, ?, ?)`,
    );
    insert.run('m.x', 1, functions('b', 'a'), null, null, null);
    insert.run('m.x', 2, functions(), null, null, null);
    insert.run('m.w', 1, functions('c'), 'r1', 'p', '2026-01-01T00:01:00.000Z');
    old.close();
    const store = await openSqliteStore(path);
    const rule = (policyModule: string, version: number, policyFunction: string) => ({ policyModule, version, policyFunction, locale: 'en-US', createdAt: '2026-01-01T00:00:00.000Z' });
    expect(await store.policies.listRules('acme', { offset: 0, limit: 10 })).toEqual({
      items: [rule('m.w', 1, 'c'), rule('m.x', 1, 'b'), rule('m.x', 1, 'a')],
      total: 3,
    });
    expect(store.raw.prepare('SELECT policy_module, version, rule_count FROM policy_versions ORDER BY policy_module, version').all()).toEqual([
      { policy_module: 'm.w', version: 1, rule_count: 1 },
      { policy_module: 'm.x', version: 1, rule_count: 2 },
      { policy_module: 'm.x', version: 2, rule_count: 0 },
    ]);
    expect(() => store.raw.prepare('UPDATE policy_versions SET rule_count = 9').run()).toThrow(/immutable/);
    expect(() => store.raw.prepare("UPDATE policy_rules SET policy_function = 'z'").run()).toThrow(/immutable/);
    expect(() => store.raw.prepare('DELETE FROM policy_rules').run()).toThrow(/immutable/);
    // The owed row's claim and mark still change; its content and count never.
    store.raw.prepare("UPDATE policy_versions SET audit_claimed_by = 'q' WHERE policy_module = 'm.w'").run();
    await store.policies.markAudited('acme', { kind: 'version', policyModule: 'm.w', version: 1 }, '2026-01-01T00:00:30.000Z');
    expect(() => store.raw.prepare("UPDATE policy_versions SET audited_at = NULL WHERE policy_module = 'm.w'").run()).toThrow(/immutable/);
    await store.close();
  });

  it('keep the activations stored before rollouts, owed records included, and their log append-only', async () => {
    const path = join(dir, 'rollouts.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 12));
    old
      .prepare(
        `INSERT INTO policy_versions (tenant_id, policy_module, version, source, locale, source_hash, functions, actor_id, created_at, rule_count)
         VALUES ('acme', 'm.x', 1, 'Module m.x.', 'en-US', 'h', '[]', 'alice', '2026-01-01T00:00:00.000Z', 0)`,
      )
      .run();
    const insert = old.prepare(
      `INSERT INTO policy_activations (tenant_id, policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at, audit_record_id, audit_claimed_by, audit_claimed_until)
       VALUES ('acme', 'm.x', ?, ?, ?, ?, 1, 'alice', ?, ?, ?, ?)`,
    );
    insert.run(1, 'DEPLOY', 1, null, '2026-01-01T00:00:00.000Z', null, null, null);
    insert.run(2, 'ROLLBACK', 0, 1, '2026-01-02T00:00:00.000Z', 'r2', 'p', '2026-01-02T00:01:00.000Z');
    old.close();
    const store = await openSqliteStore(path);
    const kept = await store.policies.listActivations('acme', 'm.x');
    expect(kept.map((a) => [a.seq, a.kind, a.version, a.previousVersion, a.rollout])).toEqual([
      [1, 'DEPLOY', 1, null, null],
      [2, 'ROLLBACK', 0, 1, null],
    ]);
    expect(await store.policies.owedAudits('2999-01-01T00:00:00.000Z', 10)).toEqual([
      { tenantId: 'acme', entry: { kind: 'activation', policyModule: 'm.x', seq: 2 }, recordId: 'r2', claim: { owner: 'p', until: '2026-01-02T00:01:00.000Z' } },
    ]);
    expect(() => store.raw.prepare("UPDATE policy_activations SET kind = 'DEPLOY' WHERE seq = 2").run()).toThrow(/append-only/);
    expect(() => store.raw.prepare('DELETE FROM policy_activations').run()).toThrow(/append-only/);
    await store.close();
  });

  it('find the OPEN anomalies stored before the status was indexed: those without a change and those changed back to OPEN', async () => {
    const path = join(dir, 'open.db');
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 13));
    const anomaly = old.prepare(
      `INSERT INTO anomalies (tenant_id, id, type, policy_module, policy_function, version, occurrence, detected_at, observation)
       VALUES ('acme', ?, 'ZOMBIE_VERSION', 'm.x', 'r', ?, 1, '2026-01-01T00:00:00.000Z', '{"observedAt":"2026-01-01T00:00:00.000Z"}')`,
    );
    const change = old.prepare(
      `INSERT INTO anomaly_transitions (tenant_id, anomaly_id, seq, from_status, to_status, note, actor_id, occurred_at)
       VALUES ('acme', ?, ?, ?, ?, NULL, 'alice', '2026-01-01T01:00:00.000Z')`,
    );
    for (const [id, version] of [['untouched', 1], ['resolved', 2], ['reopened', 3], ['verifying', 4]] as const) anomaly.run(id, version);
    change.run('resolved', 1, 'OPEN', 'RESOLVED');
    change.run('reopened', 1, 'OPEN', 'DISMISSED');
    change.run('reopened', 2, 'DISMISSED', 'OPEN');
    change.run('verifying', 1, 'OPEN', 'VERIFYING');
    old.close();
    const store = await openSqliteStore(path);
    const open = await store.anomalies.openObservedBefore('acme', { observedBefore: '2026-02-01T00:00:00.000Z', limit: 10 });
    expect(open.map((a) => a.id)).toEqual(['reopened', 'untouched']);
    await store.close();
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

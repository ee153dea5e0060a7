import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_INVALID, EXIT_UNVERIFIED, EXIT_VALID, runAuditVerifyCli } from '../../scripts/audit-verify.js';
import { createAuditTrail } from '../../src/audit/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { openMongoStore, openSqliteStore, type Store } from '../../src/store/index.js';
import type { CliIo } from '../../scripts/cli-io.js';
import { describeWithMongo } from '../support/mongo-env.js';
import { mongoTarget } from '../support/store-targets.js';

function captureIo(env: Record<string, string | undefined>): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { env, lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line) };
}

async function seed(store: Store, tenantId: string, count: number): Promise<void> {
  const trail = createAuditTrail(store.auditLinks, { recorder: { batchSize: 50 }, linker: { batchSize: 50 } });
  await Promise.all(
    Array.from({ length: count }, (_, n) => trail.recorder.append(tenantId, { eventType: 'POLICY_EVALUATED', actorId: 'svc', payload: { n } })),
  );
  await trail.close();
}

describe('audit:verify against SQLite (DATA_DIR)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pe-verify-'));
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    await seed(store, 'acme', 120);
    await seed(store, 'broken', 40);
    store.raw.exec('DROP TRIGGER audit_records_no_update');
    store.raw.prepare("UPDATE audit_records SET payload = '{\"n\":0}' WHERE tenant_id = 'broken' AND seq = 33").run();
    await store.close();
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the result and exits 0 for a valid chain', async () => {
    const io = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'acme', '--page-size', '7'], io)).toBe(EXIT_VALID);
    expect(io.lines.at(-1)).toMatch(/^tenant `acme`: chain valid, 120 records, head seq 120, head hash [0-9a-f]{64}$/);
    expect(io.errors).toEqual([]);
  });

  it('names the first bad seq and exits 1 for a tampered chain', async () => {
    const io = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'broken'], io)).toBe(EXIT_INVALID);
    expect(io.lines.at(-1)).toBe(
      'tenant `broken`: chain INVALID at seq 33: hash does not match the record content (32 records intact before it; head seq 40)',
    );
  });

  it('prints one JSON line with --json', async () => {
    const io = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'broken', '--json'], io)).toBe(EXIT_INVALID);
    expect(io.lines).toHaveLength(1);
    expect(JSON.parse(io.lines[0]!)).toMatchObject({ tenantId: 'broken', valid: false, firstInvalidSeq: 33, checked: 32 });
  });

  it('reports a tenant without records as valid and empty', async () => {
    const io = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'nobody'], io)).toBe(EXIT_VALID);
    expect(io.lines.at(-1)).toBe('tenant `nobody`: no audit records');
  });

  it('exits 2, not 1, when it cannot verify', async () => {
    const missing = captureIo({ DATA_DIR: join(dataDir, 'absent') });
    expect(await runAuditVerifyCli(['--tenant', 'acme'], missing)).toBe(EXIT_UNVERIFIED);
    expect(missing.errors.join('\n')).toMatch(/no SQLite store at .*absent/);

    const noTenant = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli([], noTenant)).toBe(EXIT_UNVERIFIED);
    expect(noTenant.errors.join('\n')).toMatch(/--tenant/);

    const badTenant = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'a b'], badTenant)).toBe(EXIT_UNVERIFIED);

    const badPage = captureIo({ DATA_DIR: dataDir });
    expect(await runAuditVerifyCli(['--tenant', 'acme', '--page-size', '0'], badPage)).toBe(EXIT_UNVERIFIED);

    const badConfig = captureIo({ DATA_DIR: dataDir, MONGODB_URL: 'http://not-mongo' });
    expect(await runAuditVerifyCli(['--tenant', 'acme'], badConfig)).toBe(EXIT_UNVERIFIED);
    expect(badConfig.errors.join('\n')).toMatch(/MONGODB_URL/);
  });
});

describeWithMongo('audit:verify against MongoDB (MONGODB_URL)', (url) => {
  const target = mongoTarget(url);

  beforeAll(async () => {
    const store = await openMongoStore({ url, database: target.database });
    await seed(store, 'acme', 60);
    await store.close();
    await target.rawTamperAudit('acme', 60, { actorId: 'intruder' });
  });
  afterAll(async () => {
    await target.dispose();
  });

  it('verifies the chain in the configured database and reports the tampered seq', async () => {
    const io = captureIo({ MONGODB_URL: url, MONGODB_DATABASE: target.database });
    expect(await runAuditVerifyCli(['--tenant', 'acme', '--page-size', '25'], io)).toBe(EXIT_INVALID);
    expect(io.lines[0]).toContain(`mongodb`);
    expect(io.lines.at(-1)).toMatch(/chain INVALID at seq 60: hash does not match the record content \(59 records intact/);
  });
});

// Deploys and rollbacks whose audit write fails: the version or activation is stored owing its
// record, and the follower writes exactly one record for it, made of what is stored, however many
// processes race for it. On SQLite and on MongoDB (FerretDB in CI: no transactions, and an update
// is no compare-and-set). Failures are injected by wrapping the repositories; time is a clock the
// test moves, so the 60 s claims end without waiting.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAuditOutboxFollower,
  newAuditOutboxLease,
  verifyChain,
  type AuditLinkRepository,
  type AuditOutboxFollower,
  type AuditRecord,
} from '../../src/audit/index.js';
import type { CompileOutcome } from '../../src/engine/index.js';
import {
  createBuiltinVersions,
  createPolicyCatalog,
  createVersionResolver,
  deployedRecordId,
  registryAuditOutbox,
  activationRecordId,
  type PolicyCatalog,
  type PolicyRepository,
} from '../../src/policies/index.js';
import type { Store } from '../../src/store/index.js';
import { describeWithMongo } from '../support/mongo-env.js';
import { auditFailing, InjectedFailure, testClock } from '../support/outbox-faults.js';
import { createProcessTrails, type ProcessTrails } from '../support/process-trails.js';
import { mongoTarget, sqliteTarget, type StoreTarget } from '../support/store-targets.js';

const LEASE_MS = 60_000;
const T0 = Date.UTC(2026, 5, 1, 12);

const source = (policyModule: string, rule = 'price') => `Module ${policyModule}.\n\nRule ${rule} given x as Int, produce Int:\n  Return x.\n`;

// The engine is the catalog's edge: a stand-in compiles what the sources above declare.
async function compile(_tenantId: string, text: string): Promise<CompileOutcome> {
  const [, moduleName = 'x', rule = 'r'] = /^Module (\S+)\.\n\nRule (\S+)/.exec(text) ?? [];
  return {
    kind: 'compiled',
    ok: true,
    module: { moduleName, locale: 'en-US', functions: [{ name: rule, params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }], workflows: [] },
    diagnostics: [],
    executionTimeMs: 1,
  };
}

/** One API process: its own connection, audit trail, claim owner, catalog and follower. */
interface Process {
  store: Store;
  catalog: PolicyCatalog;
  follower: AuditOutboxFollower;
  markErrors: unknown[];
}

function runOutboxSuite(makeTarget: () => StoreTarget): void {
  let target: StoreTarget;
  let clock: ReturnType<typeof testClock>;
  let trails: ProcessTrails;
  let tenantCounter = 0;
  const newTenant = () => `outbox-${(tenantCounter += 1)}-${Math.random().toString(36).slice(2, 8)}`;

  beforeEach(() => {
    target = makeTarget();
    clock = testClock(T0);
    trails = createProcessTrails();
  });

  afterEach(async () => {
    await trails.close();
    await target.dispose();
  });

  async function startProcess(
    wrap: { audit?: (r: AuditLinkRepository) => AuditLinkRepository; policies?: (r: PolicyRepository) => PolicyRepository } = {},
  ): Promise<Process> {
    const store = await target.connect();
    const policies = wrap.policies?.(store.policies) ?? store.policies;
    const { recorder } = trails.open(wrap.audit?.(store.auditLinks) ?? store.auditLinks, { recorder: { now: clock.now } });
    const lease = newAuditOutboxLease(LEASE_MS);
    const builtins = createBuiltinVersions([]);
    const markErrors: unknown[] = [];
    const catalog = createPolicyCatalog({
      policies,
      audit: recorder,
      compile,
      builtins,
      versions: createVersionResolver({ policies, builtins, activeVersionCacheMs: 0 }),
      auditLease: lease,
      onAuditMarkError: (error) => markErrors.push(error),
      now: clock.now,
    });
    const follower = createAuditOutboxFollower({ outboxes: [registryAuditOutbox(policies)], auditRecords: { chain: store.audit, links: store.auditLinks }, audit: recorder, lease, now: clock.now });
    return { store, catalog, follower, markErrors };
  }

  /** The tenant's chain once every process's appends are stored and linked. */
  async function chainOf(store: Store, tenantId: string): Promise<AuditRecord[]> {
    await trails.linked();
    const records: AuditRecord[] = [];
    for await (const record of store.audit.scan(tenantId, 1, 1000)) records.push(record);
    return records;
  }

  async function expectVerified(store: Store, tenantId: string): Promise<void> {
    await trails.linked();
    expect(await verifyChain(store.audit, tenantId)).toMatchObject({ valid: true, firstInvalidSeq: null });
  }

  it('a deploy whose audit append fails is stored, owed, and recorded once by the follower after its claim', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, 'POLICY_DEPLOYED') });
    const deployedAt = clock.now().toISOString();
    await expect(a.catalog.deploy(tenant, { source: source('acme.pricing'), locale: 'en-US' }, 'alice')).rejects.toBeInstanceOf(InjectedFailure);
    expect((await a.store.policies.listVersions(tenant, 'acme.pricing', { offset: 0, limit: 10 })).items.map((v) => v.version)).toEqual([1]);
    expect((await a.store.policies.headActivation(tenant, 'acme.pricing'))?.version).toBe(1);
    expect(await chainOf(a.store, tenant)).toEqual([]);

    // While the deploying process's claim lasts, no follower takes the record.
    const b = await startProcess();
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0, written: 0 });
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toEqual({ owed: 1, written: 1, found: 0, skipped: 0, failed: 0 });
    expect(await a.follower.followOnce()).toMatchObject({ owed: 0 });

    const chain = await chainOf(a.store, tenant);
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatchObject({
      id: deployedRecordId(tenant, 'acme.pricing', 1),
      eventType: 'POLICY_DEPLOYED',
      policyModule: 'acme.pricing',
      policyFunction: null,
      actorId: 'alice',
      occurredAt: deployedAt,
      payload: {
        policyModule: 'acme.pricing',
        version: 1,
        versionId: 'acme.pricing@1',
        functions: ['price'],
        locale: 'en-US',
        activated: true,
        previousVersion: null,
      },
    });
    await expectVerified(a.store, tenant);

    // The next deploy is audited by its own request, in the same shape.
    const v2 = await a.catalog.deploy(tenant, { source: source('acme.pricing', 'quote'), locale: 'en-US' }, 'bob');
    expect(v2.module.version).toBe(2);
    const after = await chainOf(a.store, tenant);
    expect(after.map((r) => r.id)).toEqual([deployedRecordId(tenant, 'acme.pricing', 1), deployedRecordId(tenant, 'acme.pricing', 2)]);
    expect(after[1]!.payload).toMatchObject({ version: 2, functions: ['quote'], activated: true, previousVersion: 1 });
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
    await expectVerified(a.store, tenant);
  });

  it('a rollback whose audit append fails is recorded once by the follower', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, 'POLICY_ROLLED_BACK') });
    await a.catalog.deploy(tenant, { source: source('acme.rates'), locale: 'en-US' }, 'alice');
    await a.catalog.deploy(tenant, { source: source('acme.rates'), locale: 'en-US' }, 'alice');
    await expect(a.catalog.rollback(tenant, 'acme.rates', 1, 'root')).rejects.toBeInstanceOf(InjectedFailure);
    const head = await a.store.policies.headActivation(tenant, 'acme.rates');
    expect(head).toMatchObject({ kind: 'ROLLBACK', version: 1, seq: 3 });

    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toMatchObject({ owed: 1, written: 1 });
    const rolledBack = (await chainOf(a.store, tenant)).filter((r) => r.eventType === 'POLICY_ROLLED_BACK');
    expect(rolledBack).toHaveLength(1);
    expect(rolledBack[0]).toMatchObject({
      id: activationRecordId('ROLLBACK', tenant, 'acme.rates', 3),
      actorId: 'root',
      occurredAt: head!.occurredAt,
      payload: { policyModule: 'acme.rates', version: 1, versionId: 'acme.rates@1', previousVersion: 2, previousVersionId: 'acme.rates@2' },
    });
    expect((await chainOf(a.store, tenant)).map((r) => r.eventType)).toEqual(['POLICY_DEPLOYED', 'POLICY_DEPLOYED', 'POLICY_ROLLED_BACK']);
    await expectVerified(a.store, tenant);
  });

  it('a record appended before its writer stopped is found, not written again', async () => {
    const tenant = newTenant();
    let failMarks = 2;
    const a = await startProcess({
      policies: (r) => ({
        ...r,
        async markAudited(...args) {
          if (failMarks > 0) {
            failMarks -= 1;
            throw new InjectedFailure('stopped before marking');
          }
          return r.markAudited(...args);
        },
      }),
    });
    // The request is answered: its record is in the chain; only the mark is missing.
    await a.catalog.deploy(tenant, { source: source('acme.limits'), locale: 'en-US' }, 'alice');
    await a.catalog.deploy(tenant, { source: source('acme.limits'), locale: 'en-US' }, 'alice');
    await a.catalog.rollback(tenant, 'acme.limits', 1, 'root');
    expect(a.markErrors).toHaveLength(2);
    expect(await chainOf(a.store, tenant)).toHaveLength(3);

    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toEqual({ owed: 2, written: 0, found: 2, skipped: 0, failed: 0 });
    expect((await chainOf(a.store, tenant)).map((r) => r.eventType)).toEqual(['POLICY_DEPLOYED', 'POLICY_DEPLOYED', 'POLICY_ROLLED_BACK']);
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
    await expectVerified(a.store, tenant);
  });

  it('a deploy stopped before its activation is recorded as stored but not activated', async () => {
    const tenant = newTenant();
    const a = await startProcess({
      policies: (r) => ({
        ...r,
        async appendActivation() {
          throw new InjectedFailure('stopped before activating');
        },
      }),
    });
    await expect(a.catalog.deploy(tenant, { source: source('acme.fees'), locale: 'en-US' }, 'alice')).rejects.toBeInstanceOf(InjectedFailure);
    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toMatchObject({ written: 1 });
    const [record] = await chainOf(a.store, tenant);
    expect(record!.payload).toMatchObject({ version: 1, activated: false, previousVersion: null });
    await expectVerified(a.store, tenant);
  });

  it('a deploy whose claim is half gone before its append leaves the record to the follower', async () => {
    const tenant = newTenant();
    const a = await startProcess({
      // A slow step between storing and auditing: the store answers after 40 s.
      policies: (r) => ({
        ...r,
        async appendActivation(...args) {
          clock.advance(40_000);
          return r.appendActivation(...args);
        },
      }),
    });
    const deployed = await a.catalog.deploy(tenant, { source: source('acme.slow'), locale: 'en-US' }, 'alice');
    expect(deployed.module.version).toBe(1);
    expect(await chainOf(a.store, tenant)).toEqual([]);
    clock.advance(LEASE_MS);
    expect(await a.follower.followOnce()).toMatchObject({ written: 1 });
    expect((await chainOf(a.store, tenant)).map((r) => r.id)).toEqual([deployedRecordId(tenant, 'acme.slow', 1)]);
  });

  it('two processes following the same owed entries write exactly one record for each', async () => {
    const tenant = newTenant();
    const other = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(auditFailing(r, 'POLICY_DEPLOYED', 6), 'POLICY_ROLLED_BACK', 1) });
    for (const [t, policyModule] of [
      [tenant, 'acme.one'],
      [tenant, 'acme.one'],
      [tenant, 'acme.two'],
      [tenant, 'acme.three'],
      [other, 'acme.one'],
      [other, 'acme.two'],
    ] as const) {
      await expect(a.catalog.deploy(t, { source: source(policyModule), locale: 'en-US' }, 'alice')).rejects.toBeInstanceOf(InjectedFailure);
    }
    await expect(a.catalog.rollback(tenant, 'acme.one', 1, 'root')).rejects.toBeInstanceOf(InjectedFailure);

    clock.advance(LEASE_MS + 1);
    const [b, c] = await Promise.all([startProcess(), startProcess()]);
    const passes = await Promise.all([b.follower.followOnce(), c.follower.followOnce(), b.follower.followOnce(), c.follower.followOnce()]);
    expect(passes.reduce((sum, p) => sum + p.written + p.found, 0)).toBe(7);
    expect(passes.reduce((sum, p) => sum + p.failed, 0)).toBe(0);

    const expected = {
      [tenant]: [
        deployedRecordId(tenant, 'acme.one', 1),
        deployedRecordId(tenant, 'acme.one', 2),
        deployedRecordId(tenant, 'acme.two', 1),
        deployedRecordId(tenant, 'acme.three', 1),
        activationRecordId('ROLLBACK', tenant, 'acme.one', 3),
      ],
      [other]: [deployedRecordId(other, 'acme.one', 1), deployedRecordId(other, 'acme.two', 1)],
    };
    for (const [t, ids] of Object.entries(expected)) {
      const chain = await chainOf(a.store, t);
      expect(chain.map((r) => r.id).sort()).toEqual([...ids].sort());
      await expectVerified(a.store, t);
    }
    clock.advance(LEASE_MS + 1);
    expect((await Promise.all([b.follower.followOnce(), c.follower.followOnce()])).map((p) => p.owed)).toEqual([0, 0]);
  }, 60_000);

  it('runs a pass when started and finishes it before stopping', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, 'POLICY_DEPLOYED') });
    await expect(a.catalog.deploy(tenant, { source: source('acme.start'), locale: 'en-US' }, 'alice')).rejects.toBeInstanceOf(InjectedFailure);
    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    b.follower.start(3_600_000);
    await b.follower.stop();
    expect((await chainOf(a.store, tenant)).map((r) => r.id)).toEqual([deployedRecordId(tenant, 'acme.start', 1)]);
  });
}

describe('registry audit outbox on SQLite', () => {
  runOutboxSuite(sqliteTarget);
});

describeWithMongo('registry audit outbox on MongoDB', (url) => {
  runOutboxSuite(() => mongoTarget(url));
});

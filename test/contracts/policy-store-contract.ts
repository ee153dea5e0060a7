import { describe, expect, it } from 'vitest';
import type { OwedAudit } from '../../src/audit/index.js';
import {
  PolicyLogError,
  type AuditedRegistryEntry,
  type PolicyActivation,
  type PolicyModuleVersion,
  type PolicyRepository,
  type RolloutTerms,
} from '../../src/policies/index.js';
import { activateModuleVersion, deployModuleVersion, moduleState } from '../../src/policies/module-version-log.js';
import type { RollupIncrement } from '../../src/rollups/index.js';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import type { StoreTarget } from '../support/store-targets.js';

let tenantCounter = 0;
function newTenant(label: string): string {
  tenantCounter += 1;
  return `${label}-${tenantCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

const T0 = Date.UTC(2026, 4, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function moduleVersion(policyModule: string, version: number, spec: Partial<PolicyModuleVersion> = {}): PolicyModuleVersion {
  return {
    policyModule,
    version,
    source: `Module ${policyModule}.\n\nRule r${version} given x as Int, produce Int:\n  Return x.\n`,
    locale: 'en-US',
    sourceHash: `${version}`.padStart(64, '0'),
    functions: [{ name: `r${version}`, params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }],
    actorId: 'deployer',
    createdAt: at(version),
    ...spec,
  };
}

function activation(policyModule: string, seq: number, spec: Partial<PolicyActivation> = {}): PolicyActivation {
  return {
    policyModule,
    seq,
    kind: 'DEPLOY',
    version: seq,
    previousVersion: seq === 1 ? null : seq - 1,
    highestDeployed: seq,
    actorId: 'deployer',
    occurredAt: at(100 + seq),
    rollout: null,
    ...spec,
  };
}

async function storeVersions(repo: PolicyRepository, tenant: string, policyModule: string, count: number): Promise<void> {
  for (let v = 1; v <= count; v += 1) expect(await repo.insertVersion(tenant, moduleVersion(policyModule, v))).toBe(true);
}

function bucket(spec: Partial<RollupIncrement> = {}): RollupIncrement {
  return {
    policyModule: 'lending.loan',
    policyFunction: 'eligible',
    version: 1,
    minute: '2026-05-01T10:00:00.000Z',
    count: 1,
    failures: 0,
    timeSum: 2.5,
    max: 2.5,
    timeSquares: 6.25,
    ...spec,
  };
}

/**
 * The policy registry's part of the store contract: module versions, activations (which version
 * is active) and per-minute rollups, with the races that must not lose or fork anything.
 */
export function runPolicyStoreContract(getStore: () => Store, getTarget: () => StoreTarget): void {
  describe('policy versions', () => {
    it('numbers versions from 1 without gaps and refuses a taken number', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('versions');
      expect(await repo.latestVersion(tenant, 'lending.loan')).toBe(0);
      const v1 = moduleVersion('lending.loan', 1, { source: 'Zürich – 東京 – 😀 "quoted"\n', locale: 'zh-CN' });
      expect(await repo.insertVersion(tenant, v1)).toBe(true);
      expect(await repo.insertVersion(tenant, moduleVersion('lending.loan', 1, { source: 'other' }))).toBe(false);
      expect(await repo.getVersion(tenant, 'lending.loan', 1)).toEqual(v1);
      await expect(repo.insertVersion(tenant, moduleVersion('lending.loan', 3))).rejects.toBeInstanceOf(PolicyLogError);
      expect(await repo.insertVersion(tenant, moduleVersion('lending.loan', 2))).toBe(true);
      expect(await repo.latestVersion(tenant, 'lending.loan')).toBe(2);
      expect(await repo.getVersion(tenant, 'lending.loan', 3)).toBeNull();
      expect(await repo.getVersion(tenant, 'lending.loan', 0)).toBeNull();
    });

    it('pages one module\'s versions in order, without their sources or signatures, with how many it has', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('list-versions');
      await storeVersions(repo, tenant, 'b.mod', 2);
      await storeVersions(repo, tenant, 'a.mod', 3);
      const { source: _source, functions: _functions, ...entry } = moduleVersion('a.mod', 1);
      expect(await repo.listVersions(tenant, 'a.mod', { offset: 0, limit: 1 })).toEqual({ items: [{ ...entry, ruleCount: 1 }], total: 3 });
      const signature = (name: string) => ({ name, params: [{ name: 'x', type: 'Int' }], returnType: 'Int' });
      expect(await repo.insertVersion(tenant, moduleVersion('d.mod', 1, { functions: ['p', 'q', 's'].map(signature) }))).toBe(true);
      expect((await repo.listVersions(tenant, 'd.mod', { offset: 0, limit: 1 })).items.map((v) => v.ruleCount)).toEqual([3]);
      const versionsOf = async (policyModule: string, offset: number, limit: number) => {
        const page = await repo.listVersions(tenant, policyModule, { offset, limit });
        return [page.items.map((v) => v.version), page.total];
      };
      expect(await versionsOf('a.mod', 1, 5)).toEqual([[2, 3], 3]);
      expect(await versionsOf('a.mod', 3, 5)).toEqual([[], 3]);
      expect(await versionsOf('a.mod', 0, 0)).toEqual([[], 3]);
      expect(await versionsOf('b.mod', 0, 10)).toEqual([[1, 2], 2]);
      expect(await versionsOf('c.mod', 0, 10)).toEqual([[], 0]);
      expect(await repo.listVersions(newTenant('list-none'), 'a.mod', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      await expect(repo.listVersions(tenant, 'a.mod', { offset: -1, limit: 1 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.listVersions(tenant, '', { offset: 0, limit: 1 })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('finds the latest version from a connection that wrote nothing, for any count', async () => {
      const tenant = newTenant('latest');
      const reader = await getTarget().connect();
      let stored = 0;
      for (const count of [1, 1, 3, 17, 2]) {
        for (let i = 0; i < count; i += 1) {
          stored += 1;
          await getStore().policies.insertVersion(tenant, moduleVersion('m.x', stored));
        }
        expect(await reader.policies.latestVersion(tenant, 'm.x')).toBe(stored);
      }
      expect(await (await getTarget().connect()).policies.latestVersion(tenant, 'm.x')).toBe(24);
    });

    it('refuses malformed versions before storing anything', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('bad-version');
      await expect(repo.insertVersion(tenant, moduleVersion('m.x', 0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insertVersion(tenant, moduleVersion('', 1))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insertVersion(tenant, moduleVersion('m'.repeat(257), 1))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insertVersion(tenant, moduleVersion('m.\uD800', 1))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insertVersion(tenant, moduleVersion('m.x', 1, { createdAt: 'soon' }))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insertVersion('', moduleVersion('m.x', 1))).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await repo.latestVersion(tenant, 'm.x')).toBe(0);
    });
  });

  describe('policy rule lists', () => {
    const rules = (...names: string[]) => names.map((name) => ({ name, params: [], returnType: 'Bool' }));
    /** a.mod@1 (k, l, in de-DE), b.mod@1 (x, y, z), b.mod@2 (no rules), b.mod@3 (p, q), c.mod@1 (c1). */
    async function storeRuleFixture(repo: PolicyRepository, tenant: string): Promise<void> {
      for (const version of [
        moduleVersion('b.mod', 1, { functions: rules('x', 'y', 'z') }),
        moduleVersion('a.mod', 1, { functions: rules('k', 'l'), locale: 'de-DE' }),
        moduleVersion('b.mod', 2, { functions: [] }),
        moduleVersion('b.mod', 3, { functions: rules('p', 'q') }),
        moduleVersion('c.mod', 1, { functions: rules('c1') }),
      ]) {
        expect(await repo.insertVersion(tenant, version)).toBe(true);
      }
    }
    const entry = (policyModule: string, version: number, policyFunction: string) => ({
      policyModule,
      version,
      policyFunction,
      locale: policyModule === 'a.mod' ? 'de-DE' : 'en-US',
      createdAt: at(version),
    });
    const ALL = [
      entry('a.mod', 1, 'k'), entry('a.mod', 1, 'l'),
      entry('b.mod', 1, 'x'), entry('b.mod', 1, 'y'), entry('b.mod', 1, 'z'),
      entry('b.mod', 3, 'p'), entry('b.mod', 3, 'q'),
      entry('c.mod', 1, 'c1'),
    ];

    it('pages the rules by module, version and place, with the total, for every offset and limit', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('rules');
      await storeRuleFixture(repo, tenant);
      for (let offset = 0; offset <= ALL.length + 1; offset += 1) {
        for (let limit = 0; limit <= ALL.length + 1; limit += 1) {
          expect(await repo.listRules(tenant, { offset, limit }), `offset ${offset}, limit ${limit}`).toEqual({
            items: ALL.slice(offset, offset + limit),
            total: ALL.length,
          });
        }
      }
      expect(await repo.listRules(tenant, { policyModule: 'b.mod', offset: 1, limit: 3 })).toEqual({
        items: [entry('b.mod', 1, 'y'), entry('b.mod', 1, 'z'), entry('b.mod', 3, 'p')],
        total: 5,
      });
      expect(await repo.listRules(tenant, { policyModule: 'd.mod', offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect(await repo.listRules(newTenant('rules-none'), { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('lists the rules of each module\'s active version, or of the others, as any connection sees the activations', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('rules-active');
      await storeRuleFixture(repo, tenant);
      // a.mod: version 1 active. b.mod: 1, then 3, then back to 1. c.mod: never activated.
      await repo.appendActivation(tenant, activation('a.mod', 1));
      await repo.appendActivation(tenant, activation('b.mod', 1));
      await repo.appendActivation(tenant, activation('b.mod', 2, { version: 3, previousVersion: 1, highestDeployed: 3 }));
      const reader = await getTarget().connect();
      expect(await reader.policies.listRules(tenant, { active: true, offset: 0, limit: 10 })).toEqual({
        items: [entry('a.mod', 1, 'k'), entry('a.mod', 1, 'l'), entry('b.mod', 3, 'p'), entry('b.mod', 3, 'q')],
        total: 4,
      });
      await repo.appendActivation(tenant, activation('b.mod', 3, { kind: 'ROLLBACK', version: 1, previousVersion: 3, highestDeployed: 3 }));
      for (const store of [getStore(), reader]) {
        expect(await store.policies.listRules(tenant, { active: true, offset: 1, limit: 3 })).toEqual({
          items: [entry('a.mod', 1, 'l'), entry('b.mod', 1, 'x'), entry('b.mod', 1, 'y')],
          total: 5,
        });
        expect(await store.policies.listRules(tenant, { active: false, offset: 0, limit: 10 })).toEqual({
          items: [entry('b.mod', 3, 'p'), entry('b.mod', 3, 'q'), entry('c.mod', 1, 'c1')],
          total: 3,
        });
        expect(await store.policies.listRules(tenant, { active: false, policyModule: 'a.mod', offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      }
    });

    it('counts the tenant\'s versions across modules, those without rules included', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('count-versions');
      expect(await repo.countVersions(tenant)).toBe(0);
      await storeRuleFixture(repo, tenant);
      expect(await repo.countVersions(tenant)).toBe(5);
      expect(await repo.countVersions(newTenant('count-none'))).toBe(0);
    });

    it('refuses malformed queries and unnamed rules', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('rules-bad');
      for (const query of [
        { offset: -1, limit: 1 },
        { offset: 0, limit: 1.5 },
        { offset: 0, limit: 1, policyModule: '' },
        { offset: 0, limit: 1, active: 'yes' as unknown as boolean },
      ]) {
        await expect(repo.listRules(tenant, query), JSON.stringify(query)).rejects.toBeInstanceOf(StoreArgumentError);
      }
      await expect(repo.listRules('', { offset: 0, limit: 1 })).rejects.toBeInstanceOf(StoreArgumentError);
      const unnamed = moduleVersion('m.x', 1, { functions: [{ params: [], returnType: 'Int' } as never] });
      await expect(repo.insertVersion(tenant, unnamed)).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await repo.countVersions(tenant)).toBe(0);
    });
  });

  describe('policy activations', () => {
    it('has no head before the first activation; the newest activation is the head', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('head');
      await storeVersions(repo, tenant, 'm.x', 2);
      expect(await repo.headActivation(tenant, 'm.x')).toBeNull();
      const first = activation('m.x', 1, { previousVersion: 0 });
      expect(await repo.appendActivation(tenant, first)).toBe(true);
      expect(await repo.headActivation(tenant, 'm.x')).toEqual(first);
      const second = activation('m.x', 2);
      expect(await repo.appendActivation(tenant, second)).toBe(true);
      const back = activation('m.x', 3, { kind: 'ROLLBACK', version: 0, previousVersion: 2, highestDeployed: 2 });
      expect(await repo.appendActivation(tenant, back)).toBe(true);
      expect(await repo.headActivation(tenant, 'm.x')).toEqual(back);
      expect(await repo.listActivations(tenant, 'm.x')).toEqual([first, second, back]);
    });

    it('returns false when the seq is taken and keeps the stored activation', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('taken');
      await storeVersions(repo, tenant, 'm.x', 2);
      const winner = activation('m.x', 1);
      expect(await repo.appendActivation(tenant, winner)).toBe(true);
      expect(await repo.appendActivation(tenant, activation('m.x', 1, { version: 2, highestDeployed: 2 }))).toBe(false);
      expect(await repo.headActivation(tenant, 'm.x')).toEqual(winner);
    });

    it('refuses an activation that does not extend the log or names an unknown version', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('refuse-activation');
      await storeVersions(repo, tenant, 'm.x', 2);
      await expect(repo.appendActivation(tenant, activation('m.x', 1, { version: 3, highestDeployed: 3 }))).rejects.toBeInstanceOf(PolicyLogError);
      expect(await repo.appendActivation(tenant, activation('m.x', 1))).toBe(true);
      await expect(repo.appendActivation(tenant, activation('m.x', 3))).rejects.toThrow(/activation 2 does not exist/);
      await expect(repo.appendActivation(tenant, activation('m.x', 2, { previousVersion: 2 }))).rejects.toThrow(/previous version/);
      await expect(repo.appendActivation(tenant, activation('m.x', 2, { highestDeployed: 0 }))).rejects.toBeInstanceOf(PolicyLogError);
      await expect(repo.appendActivation(tenant, activation('m.x', 2, { kind: 'UNDO' as never }))).rejects.toBeInstanceOf(StoreArgumentError);
      expect((await repo.listActivations(tenant)).map((a) => a.seq)).toEqual([1]);
    });

    it('finds the head from another connection after each of many activations', async () => {
      const tenant = newTenant('head-reader');
      const writer = getStore().policies;
      const reader = (await getTarget().connect()).policies;
      await storeVersions(writer, tenant, 'm.x', 2);
      let previous: number | null = null;
      for (let seq = 1; seq <= 37; seq += 1) {
        const version = seq % 3; // 1, 2, 0, 1, 2, 0, …: version 0 is the built-in
        const next = activation('m.x', seq, { version, previousVersion: previous, highestDeployed: 2, kind: 'ROLLBACK' });
        expect(await writer.appendActivation(tenant, next)).toBe(true);
        previous = version;
        if (seq % 4 === 1 || seq === 37) expect(await reader.headActivation(tenant, 'm.x')).toEqual(next);
      }
      expect((await (await getTarget().connect()).policies.headActivation(tenant, 'm.x'))?.seq).toBe(37);
    });

    it('keeps tenants and modules apart', async () => {
      const a = newTenant('iso-pa');
      const b = newTenant('iso-pb');
      const repo = getStore().policies;
      await storeVersions(repo, a, 'm.x', 1);
      await repo.appendActivation(a, activation('m.x', 1));
      expect(await repo.latestVersion(b, 'm.x')).toBe(0);
      expect(await repo.getVersion(b, 'm.x', 1)).toBeNull();
      expect(await repo.headActivation(b, 'm.x')).toBeNull();
      expect(await repo.headActivation(a, 'm.y')).toBeNull();
      expect(await repo.listVersions(b, 'm.x', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect(await repo.listActivations(b)).toEqual([]);
      // B's first version and activation are B's own number 1.
      expect(await repo.insertVersion(b, moduleVersion('m.x', 1, { source: 'b' }))).toBe(true);
      expect(await repo.appendActivation(b, activation('m.x', 1))).toBe(true);
      expect((await repo.getVersion(a, 'm.x', 1))?.source).not.toBe('b');
    });
  });

  describe('rollout steps', () => {
    const terms = (startedSeq: number, spec: Partial<RolloutTerms> = {}): RolloutTerms => ({
      version: 2,
      mode: 'canary',
      percent: 10,
      stickyKey: 'applicant.id',
      captureContexts: false,
      startedSeq,
      reason: null,
      anomalyId: null,
      ...spec,
    });

    it('stores a rollout\'s terms with its steps and reads them back from any connection', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('rollout-steps');
      await storeVersions(repo, tenant, 'm.x', 2);
      expect(await repo.appendActivation(tenant, activation('m.x', 1))).toBe(true);
      const started = activation('m.x', 2, { kind: 'ROLLOUT_STARTED', version: 1, previousVersion: 1, highestDeployed: 1, rollout: terms(2) });
      expect(await repo.appendActivation(tenant, started)).toBe(true);
      const other = (await getTarget().connect()).policies;
      expect(await other.headActivation(tenant, 'm.x')).toEqual(started);
      const promoted = activation('m.x', 3, { kind: 'ROLLOUT_PROMOTED', version: 2, previousVersion: 1, highestDeployed: 2, rollout: terms(2, { reason: 'fine' }) });
      expect(await repo.appendActivation(tenant, promoted)).toBe(true);
      expect(await other.listActivations(tenant, 'm.x')).toEqual([activation('m.x', 1), started, promoted]);
    });

    it('refuses a rollout step without its terms, terms on a deploy, and malformed terms', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('rollout-refused');
      await storeVersions(repo, tenant, 'm.x', 2);
      expect(await repo.appendActivation(tenant, activation('m.x', 1))).toBe(true);
      const step = (rollout: unknown) => activation('m.x', 2, { kind: 'ROLLOUT_STARTED', version: 1, previousVersion: 1, highestDeployed: 1, rollout: rollout as RolloutTerms });
      for (const bad of [null, { ...terms(2), percent: 0 }, { ...terms(2), percent: 101 }, { ...terms(2), mode: 'blue' }, { ...terms(2), stickyKey: 5 }, { ...terms(2), startedSeq: 0 }]) {
        await expect(repo.appendActivation(tenant, step(bad)), JSON.stringify(bad)).rejects.toBeInstanceOf(StoreArgumentError);
      }
      await expect(repo.appendActivation(tenant, activation('m.x', 2, { rollout: terms(2) }))).rejects.toBeInstanceOf(StoreArgumentError);
      expect((await repo.listActivations(tenant, 'm.x')).map((a) => a.seq)).toEqual([1]);
    });

    it('lists the running rollouts of every tenant by tenant and module, in pages, and no ended one', async () => {
      const repo = getStore().policies;
      const prefix = newTenant('running');
      const tenants = [`${prefix}-a`, `${prefix}-b`];
      const startedOf = (policyModule: string) =>
        activation(policyModule, 2, { kind: 'ROLLOUT_STARTED', version: 1, previousVersion: 1, highestDeployed: 1, rollout: terms(2) });
      for (const tenant of tenants) {
        for (const policyModule of ['m.a', 'm.b', 'm.c']) {
          await storeVersions(repo, tenant, policyModule, 2);
          await repo.appendActivation(tenant, activation(policyModule, 1));
          await repo.appendActivation(tenant, startedOf(policyModule));
        }
        // m.b's rollout ended.
        await repo.appendActivation(tenant, activation('m.b', 3, { kind: 'ROLLOUT_ABORTED', version: 1, previousVersion: 1, highestDeployed: 1, rollout: terms(2, { reason: 'no' }) }));
      }
      const ours = async (query: Parameters<PolicyRepository['runningRollouts']>[0]) =>
        (await repo.runningRollouts(query)).filter((r) => r.tenantId.startsWith(prefix)).map((r) => `${r.tenantId.slice(prefix.length)}/${r.activation.policyModule}`);
      expect(await ours({ limit: 1000, after: { tenantId: prefix, policyModule: 'm.a' } })).toEqual(['-a/m.a', '-a/m.c', '-b/m.a', '-b/m.c']);
      expect(await ours({ limit: 2, after: { tenantId: `${prefix}-a`, policyModule: 'm.a' } })).toEqual(['-a/m.c', '-b/m.a']);
      const [first] = await repo.runningRollouts({ limit: 1, after: { tenantId: `${prefix}-b`, policyModule: 'm.a' } });
      expect(first).toEqual({ tenantId: `${prefix}-b`, activation: startedOf('m.c') });
      await expect(repo.runningRollouts({ limit: 0 })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('finds a module\'s running rollout behind its ended ones, page by page', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('running-after-ended');
      await storeVersions(repo, tenant, 'm.a', 2);
      await storeVersions(repo, tenant, 'm.b', 2);
      await repo.appendActivation(tenant, activation('m.a', 1));
      const step = (seq: number, kind: 'ROLLOUT_STARTED' | 'ROLLOUT_ABORTED', startedSeq: number) =>
        activation('m.a', seq, { kind, version: 1, previousVersion: 1, highestDeployed: 1, rollout: terms(startedSeq, kind === 'ROLLOUT_ABORTED' ? { reason: 'no' } : {}) });
      for (const [seq, kind, startedSeq] of [[2, 'ROLLOUT_STARTED', 2], [3, 'ROLLOUT_ABORTED', 2], [4, 'ROLLOUT_STARTED', 4], [5, 'ROLLOUT_ABORTED', 4], [6, 'ROLLOUT_STARTED', 6]] as const) {
        expect(await repo.appendActivation(tenant, step(seq, kind, startedSeq))).toBe(true);
      }
      await repo.appendActivation(tenant, activation('m.b', 1));
      expect(await repo.appendActivation(tenant, activation('m.b', 2, { kind: 'ROLLOUT_STARTED', version: 1, previousVersion: 1, highestDeployed: 1, rollout: terms(2) }))).toBe(true);
      const found: string[] = [];
      // Starting after a module named below both (names are compared as text).
      let after: { tenantId: string; policyModule: string } | undefined = { tenantId: tenant, policyModule: 'm' };
      while (after !== undefined) {
        const [next] = await repo.runningRollouts({ limit: 1, after });
        if (next === undefined || next.tenantId !== tenant) break;
        found.push(`${next.activation.policyModule}#${next.activation.seq}`);
        after = { tenantId: next.tenantId, policyModule: next.activation.policyModule };
      }
      expect(found).toEqual(['m.a#6', 'm.b#2']);
    });
  });

  describe('owed audit records (the registry as the outbox of its audit records)', () => {
    const owed = (recordId: string, owner: string, untilSeconds: number): OwedAudit => ({ recordId, claim: { owner, until: at(untilSeconds) } });
    const versionEntry = (policyModule: string, version: number): AuditedRegistryEntry => ({ kind: 'version', policyModule, version });
    const activationEntry = (policyModule: string, seq: number): AuditedRegistryEntry => ({ kind: 'activation', policyModule, seq });
    /** The owed entries of one tenant (the backend is shared by every case, and the list spans tenants). */
    async function owedOf(repo: PolicyRepository, tenant: string, nowSeconds: number) {
      return (await repo.owedAudits(at(nowSeconds), 10_000)).filter((o) => o.tenantId === tenant);
    }

    it('stores the owed record with the entry and lists it, across tenants, once its claim ended', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('owed');
      const other = newTenant('owed-other');
      expect(await repo.insertVersion(tenant, moduleVersion('m.x', 1), owed('rec-v1', 'p1', 1000))).toBe(true);
      expect(await repo.insertVersion(tenant, moduleVersion('m.x', 2))).toBe(true);
      expect(await repo.appendActivation(tenant, activation('m.x', 1))).toBe(true);
      const rollback = activation('m.x', 2, { kind: 'ROLLBACK', version: 2, previousVersion: 1, highestDeployed: 1 });
      expect(await repo.appendActivation(tenant, rollback, owed('rec-a2', 'p2', 2000))).toBe(true);
      expect(await repo.insertVersion(other, moduleVersion('m.y', 1), owed('rec-other', 'p3', 1500))).toBe(true);
      // The entries read back exactly as stored: the outbox fields are not part of them.
      expect(await repo.getVersion(tenant, 'm.x', 1)).toEqual(moduleVersion('m.x', 1));
      expect(await repo.listActivations(tenant, 'm.x')).toEqual([activation('m.x', 1), rollback]);

      expect(await owedOf(repo, tenant, 1000)).toEqual([]);
      expect(await owedOf(repo, tenant, 1001)).toEqual([
        { tenantId: tenant, entry: versionEntry('m.x', 1), recordId: 'rec-v1', claim: { owner: 'p1', until: at(1000) } },
      ]);
      const all = (await repo.owedAudits(at(3000), 10_000)).filter((o) => o.tenantId === tenant || o.tenantId === other);
      expect(all.map((o) => o.recordId)).toEqual(['rec-v1', 'rec-other', 'rec-a2']);
      expect(all[2]).toEqual({ tenantId: tenant, entry: activationEntry('m.x', 2), recordId: 'rec-a2', claim: { owner: 'p2', until: at(2000) } });
    });

    it('marks an entry audited once and for good; an entry stored without a record owes nothing', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('owed-mark');
      await repo.insertVersion(tenant, moduleVersion('m.x', 1), owed('rec-1', 'p1', 10));
      await repo.insertVersion(tenant, moduleVersion('m.x', 2), owed('rec-2', 'p1', 10));
      await repo.insertVersion(tenant, moduleVersion('m.x', 3));
      await repo.markAudited(tenant, versionEntry('m.x', 1), at(20));
      await repo.markAudited(tenant, versionEntry('m.x', 1), at(30));
      await repo.markAudited(tenant, versionEntry('m.x', 3), at(30));
      await repo.markAudited(tenant, versionEntry('m.x', 9), at(30));
      expect((await owedOf(repo, tenant, 5000)).map((o) => o.recordId)).toEqual(['rec-2']);
      expect(await repo.claimAudit(tenant, versionEntry('m.x', 1), { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      expect(await repo.claimAudit(tenant, versionEntry('m.x', 3), { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      expect(await repo.getVersion(tenant, 'm.x', 1)).toEqual(moduleVersion('m.x', 1));
    });

    it('gives an ended claim to one new owner, refuses a live one, and can take it over again', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('owed-claim');
      await storeVersions(repo, tenant, 'm.x', 1);
      await repo.appendActivation(tenant, activation('m.x', 1), owed('rec-a1', 'writer', 100));
      const entry = activationEntry('m.x', 1);
      expect(await repo.claimAudit(tenant, entry, { owner: 'early', until: at(200) }, at(99))).toBe(false);
      expect(await repo.claimAudit(tenant, entry, { owner: 'follower-1', until: at(200) }, at(101))).toBe(true);
      expect(await repo.claimAudit(tenant, entry, { owner: 'follower-2', until: at(200) }, at(101))).toBe(false);
      expect(await owedOf(repo, tenant, 150)).toEqual([]);
      expect(await owedOf(repo, tenant, 201)).toEqual([
        { tenantId: tenant, entry, recordId: 'rec-a1', claim: { owner: 'follower-1', until: at(200) } },
      ]);
      // Another connection sees the claim too.
      const other = (await getTarget().connect()).policies;
      expect(await other.claimAudit(tenant, entry, { owner: 'follower-2', until: at(300) }, at(150))).toBe(false);
      expect(await other.claimAudit(tenant, entry, { owner: 'follower-2', until: at(300) }, at(250))).toBe(true);
      expect((await owedOf(repo, tenant, 400))[0]?.claim).toEqual({ owner: 'follower-2', until: at(300) });
      expect(await repo.claimAudit(tenant, activationEntry('m.x', 2), { owner: 'x', until: at(900) }, at(800))).toBe(false);
      expect(await repo.claimAudit(newTenant('owed-none'), entry, { owner: 'x', until: at(900) }, at(800))).toBe(false);
    });

    it('lets exactly one of many concurrent claimers on separate connections take an ended claim', async () => {
      const tenant = newTenant('owed-race');
      await getStore().policies.insertVersion(tenant, moduleVersion('m.x', 1), owed('rec-race', 'dead', 10));
      const stores = [getStore(), ...(await Promise.all([1, 2, 3].map(() => getTarget().connect())))];
      for (const round of [1, 2, 3]) {
        const now = at(10 + round * 100);
        const wins = await Promise.all(
          stores.flatMap((s, i) =>
            Array.from({ length: 5 }, (_, j) =>
              s.policies.claimAudit(tenant, versionEntry('m.x', 1), { owner: `c-${round}-${i}-${j}`, until: at(10 + round * 100 + 50) }, now),
            ),
          ),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
      }
    }, 60_000);

    it('refuses malformed owed records, entries and claims', async () => {
      const repo = getStore().policies;
      const tenant = newTenant('owed-bad');
      await expect(repo.insertVersion(tenant, moduleVersion('m.x', 1), owed('', 'p', 10))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(
        repo.insertVersion(tenant, moduleVersion('m.x', 1), { recordId: 'r', claim: { owner: 'p', until: 'later' } }),
      ).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await repo.latestVersion(tenant, 'm.x')).toBe(0);
      await expect(repo.claimAudit(tenant, { kind: 'module' } as never, { owner: 'p', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.claimAudit(tenant, versionEntry('m.x', 0), { owner: 'p', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.claimAudit(tenant, versionEntry('m.x', 1), { owner: '', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.markAudited(tenant, activationEntry('m.x', 1), 'soon')).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.owedAudits('soon', 10)).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.owedAudits(at(0), 0)).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });

  describe('policy concurrency proof', () => {
    it('racing deploys from 4 connections take versions 1…n once each; the highest deployed version is active', async () => {
      const tenant = newTenant('race-deploy');
      const stores = [getStore(), ...(await Promise.all([1, 2, 3].map(() => getTarget().connect())))];
      const perStore = 6;
      const outcomes = await Promise.all(
        stores.flatMap((s, i) =>
          Array.from({ length: perStore }, (_, j) =>
            deployModuleVersion(s.policies, tenant, {
              policyModule: 'race.mod',
              source: `source ${i}-${j}`,
              locale: 'en-US',
              sourceHash: 'h'.repeat(64),
              functions: [],
              actorId: `writer-${i}`,
              at: new Date(T0),
              initialVersion: 0,
            }),
          ),
        ),
      );
      const total = stores.length * perStore;
      const numbers = outcomes.map((o) => o.version.version).sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      // Each stored version holds the source of the deploy that was told it got that number.
      for (const outcome of outcomes) {
        expect((await getStore().policies.getVersion(tenant, 'race.mod', outcome.version.version))?.source).toBe(outcome.version.source);
      }
      const log = await getStore().policies.listActivations(tenant, 'race.mod');
      expect(log.map((a) => a.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log[0]!.previousVersion).toBe(0);
      log.slice(1).forEach((a, i) => expect(a.previousVersion).toBe(log[i]!.version));
      // Deploys are activated in increasing version order; a deploy overtaken by a higher one is not.
      expect(log.map((a) => a.version)).toEqual([...log.map((a) => a.version)].sort((x, y) => x - y));
      const activated = outcomes.filter((o) => o.activation !== null).map((o) => o.version.version).sort((x, y) => x - y);
      expect(activated).toEqual(log.map((a) => a.version));
      for (const s of stores) {
        const head = await s.policies.headActivation(tenant, 'race.mod');
        expect(head?.version).toBe(total);
        expect(moduleState(log, 0).active).toBe(total);
      }
    }, 120_000);

    it('racing rollbacks and deploys leave one linked log whose head every connection agrees on', async () => {
      const tenant = newTenant('race-rollback');
      const stores = [getStore(), ...(await Promise.all([1, 2, 3].map(() => getTarget().connect())))];
      await storeVersions(getStore().policies, tenant, 'mixed.mod', 3);
      const work = stores.flatMap((s, i) => [
        activateModuleVersion(s.policies, tenant, { policyModule: 'mixed.mod', version: (i % 3) + 1, actorId: `r-${i}`, at: new Date(T0), initialVersion: null }),
        activateModuleVersion(s.policies, tenant, { policyModule: 'mixed.mod', version: ((i + 1) % 3) + 1, actorId: `r-${i}`, at: new Date(T0), initialVersion: null }),
        deployModuleVersion(s.policies, tenant, {
          policyModule: 'mixed.mod', source: `d-${i}`, locale: 'en-US', sourceHash: 'h'.repeat(64), functions: [], actorId: `d-${i}`, at: new Date(T0), initialVersion: null,
        }),
      ]);
      const results = await Promise.all(work);
      const log = await getStore().policies.listActivations(tenant, 'mixed.mod');
      expect(log.map((a) => a.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log[0]!.previousVersion).toBeNull();
      log.slice(1).forEach((a, i) => {
        expect(a.previousVersion).toBe(log[i]!.version);
        // No activation re-activates the version that was already active.
        expect(a.version).not.toBe(a.previousVersion);
      });
      const performed = results.filter((r) => ('activated' in r ? r.activated : r.activation !== null)).length;
      expect(performed).toBe(log.length);
      expect(await getStore().policies.latestVersion(tenant, 'mixed.mod')).toBe(3 + stores.length);
      const heads = await Promise.all(stores.map((s) => s.policies.headActivation(tenant, 'mixed.mod')));
      for (const head of heads) expect(head).toEqual(log[log.length - 1]);
    }, 120_000);
  });

  describe('rollups', () => {
    it('adds increments into per-minute buckets and reads them back by time range', async () => {
      const rollups = getStore().rollups;
      const tenant = newTenant('rollup');
      await rollups.add(tenant, [
        bucket(),
        bucket({ failures: 1, timeSum: 4, max: 4 }),
        bucket({ minute: '2026-05-01T10:01:00Z', timeSum: 1, max: 1 }),
        bucket({ policyFunction: 'rate', version: 2, count: 3, failures: 2, timeSum: 9.75, max: 7.5 }),
      ]);
      await rollups.add(tenant, [bucket({ count: 2, timeSum: 0.5, max: 0.25 })]);
      expect(await rollups.range(tenant, { from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:59:00Z' })).toEqual([
        bucket({ count: 4, failures: 1, timeSum: 7, max: 4, timeSquares: 18.75 }),
        bucket({ minute: '2026-05-01T10:01:00.000Z', timeSum: 1, max: 1 }),
        bucket({ policyFunction: 'rate', version: 2, count: 3, failures: 2, timeSum: 9.75, max: 7.5 }),
      ]);
      expect((await rollups.range(tenant, { from: '2026-05-01T10:01:00.000Z', to: '2026-05-01T11:01:00+01:00' })).map((b) => b.minute)).toEqual([
        '2026-05-01T10:01:00.000Z',
      ]);
      const onlyRate = await rollups.range(tenant, { from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', policyFunction: 'rate', version: 2 });
      expect(onlyRate.map((b) => b.count)).toEqual([3]);
      expect(await rollups.range(tenant, { from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', policyModule: 'other' })).toEqual([]);
      expect(await rollups.range(newTenant('rollup-other'), { from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z' })).toEqual([]);
    });

    it('scans one function’s buckets in the window by version then minute, in pages, with every writer’s share', async () => {
      const rollups = getStore().rollups;
      const tenant = newTenant('rollup-scan');
      const minute = (m: number) => new Date(Date.UTC(2026, 4, 1, 10, m)).toISOString();
      await rollups.add(tenant, [
        bucket({ version: 2, minute: minute(3) }),
        bucket({ version: 1, minute: minute(5), count: 3, failures: 1, timeSum: 3, max: 2, timeSquares: 5 }),
        bucket({ version: 1, minute: minute(1) }),
        bucket({ version: 1, minute: minute(2) }),
        bucket({ version: 0, minute: minute(4) }),
        // Outside the window, another function, another module, another tenant.
        bucket({ version: 1, minute: minute(0) }),
        bucket({ version: 3, minute: minute(30) }),
        bucket({ policyFunction: 'rate', minute: minute(2) }),
        bucket({ policyModule: 'lending.other', minute: minute(2) }),
      ]);
      await rollups.add(newTenant('rollup-scan-other'), [bucket({ minute: minute(2) })]);
      // Another connection (on MongoDB: another writer, another document) adds to one bucket.
      await (await getTarget().connect()).rollups.add(tenant, [bucket({ version: 1, minute: minute(5), count: 2, failures: 2, timeSum: 1, max: 7, timeSquares: 0.5 })]);

      const scanned = async (query: { version?: number }, pageSize: number) => {
        const found = [];
        const window = { policyModule: 'lending.loan', policyFunction: 'eligible', from: minute(1), to: '2026-05-01T10:05:00Z', ...query };
        for await (const b of rollups.scan(tenant, window, pageSize)) found.push(b);
        return found;
      };
      const expected = [
        bucket({ version: 0, minute: minute(4) }),
        bucket({ version: 1, minute: minute(1) }),
        bucket({ version: 1, minute: minute(2) }),
        bucket({ version: 1, minute: minute(5), count: 5, failures: 3, timeSum: 4, max: 7, timeSquares: 5.5 }),
        bucket({ version: 2, minute: minute(3) }),
      ];
      for (const pageSize of [1, 2, 1000]) expect(await scanned({}, pageSize), `pages of ${pageSize}`).toEqual(expected);
      expect(await scanned({ version: 1 }, 2)).toEqual(expected.filter((b) => b.version === 1));
      expect(await scanned({ version: 4 }, 2)).toEqual([]);

      // A reader may stop after any bucket.
      for await (const first of rollups.scan(tenant, { policyModule: 'lending.loan', policyFunction: 'eligible', from: minute(0), to: minute(59) }, 1)) {
        expect(first).toEqual(bucket({ version: 0, minute: minute(4) }));
        break;
      }
      const refused = rollups.scan(tenant, { policyModule: 'lending.loan', policyFunction: '', from: minute(0), to: minute(5) }, 10);
      await expect(refused[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreArgumentError);
      const noPages = rollups.scan(tenant, { policyModule: 'lending.loan', policyFunction: 'eligible', from: minute(0), to: minute(5) }, 0);
      await expect(noPages[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('names the tenants with buckets in a window', async () => {
      const rollups = getStore().rollups;
      const a = newTenant('rt-a');
      const b = newTenant('rt-b');
      await rollups.add(a, [bucket({ minute: '2031-01-01T00:00:00Z' })]);
      await rollups.add(b, [bucket({ minute: '2031-01-01T00:05:00Z' })]);
      expect(await rollups.tenantsWithBuckets('2031-01-01T00:00:00Z', '2031-01-01T00:04:00Z')).toEqual([a]);
      expect(await rollups.tenantsWithBuckets('2031-01-01T00:00:00Z', '2031-01-01T01:00:00Z')).toEqual([a, b].sort());
    });

    it('refuses bad increments and queries, storing nothing of the call', async () => {
      const rollups = getStore().rollups;
      const tenant = newTenant('rollup-bad');
      for (const bad of [
        bucket({ minute: '2026-05-01T10:00:30Z' }),
        bucket({ count: 0 }),
        bucket({ failures: 2 }),
        bucket({ timeSum: -1 }),
        bucket({ max: Number.NaN }),
        bucket({ version: -1 }),
        bucket({ policyFunction: '' }),
        bucket({ timeSquares: -1 }),
      ]) {
        await expect(rollups.add(tenant, [bucket(), bad])).rejects.toBeInstanceOf(StoreArgumentError);
      }
      expect(await rollups.range(tenant, { from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z' })).toEqual([]);
      await expect(rollups.range(tenant, { from: 'today', to: '2026-05-02T00:00:00Z' })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('8 connections × 100 concurrent adds to one bucket lose no increment', async () => {
      const tenant = newTenant('rollup-race');
      const stores = [getStore(), ...(await Promise.all(Array.from({ length: 7 }, () => getTarget().connect())))];
      await Promise.all(
        stores.flatMap((s, i) =>
          Array.from({ length: 100 }, (_, j) =>
            s.rollups.add(tenant, [bucket({ failures: j % 2, timeSum: 1.5, max: i * 100 + j })]),
          ),
        ),
      );
      const [stored] = await (await getTarget().connect()).rollups.range(tenant, { from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:00:00Z' });
      expect(stored).toEqual(bucket({ count: 800, failures: 400, timeSum: 1200, max: 799, timeSquares: 5000 }));
    }, 120_000);

    it('sums a window per version: counts, times, squares, the largest max and the buckets', async () => {
      const rollups = getStore().rollups;
      const tenant = newTenant('rollup-totals');
      const others = await Promise.all([getTarget().connect(), getTarget().connect()]);
      await rollups.add(tenant, [
        bucket({ minute: '2026-05-01T09:59:00Z' }),
        bucket({ minute: '2026-05-01T10:00:00Z', count: 4, failures: 1, timeSum: 8, max: 3, timeSquares: 17 }),
        bucket({ minute: '2026-05-01T10:05:00Z', count: 2, timeSum: 1, max: 0.75, timeSquares: 0.625 }),
        bucket({ policyFunction: 'rate', version: 2, minute: '2026-05-01T10:10:00Z', count: 3, failures: 3, timeSum: 3, max: 1, timeSquares: 3 }),
        bucket({ minute: '2026-05-01T10:11:00Z' }),
      ]);
      // Other connections (on MongoDB: other writers, other documents) add to the same buckets.
      await Promise.all(others.map((s) => s.rollups.add(tenant, [bucket({ minute: '2026-05-01T10:05:00Z', max: 9 })])));
      const totals = await rollups.totals(tenant, { from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:10:00Z' });
      totals.sort((a, b) => a.policyFunction.localeCompare(b.policyFunction));
      expect(totals).toEqual([
        { policyModule: 'lending.loan', policyFunction: 'eligible', version: 1, count: 8, failures: 1, timeSum: 14, timeSquares: 30.125, max: 9, buckets: 2 },
        { policyModule: 'lending.loan', policyFunction: 'rate', version: 2, count: 3, failures: 3, timeSum: 3, timeSquares: 3, max: 1, buckets: 1 },
      ]);
      expect(await rollups.totals(newTenant('rollup-totals-other'), { from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:10:00Z' })).toEqual([]);
      await expect(rollups.totals(tenant, { from: 'soon', to: '2026-05-01T10:10:00Z' })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('sums a window of many buckets, of one function or version when named, and never the history outside it', async () => {
      const rollups = getStore().rollups;
      const tenant = newTenant('rollup-totals-many');
      const other = await getTarget().connect();
      const minutes = Array.from({ length: 5 }, (_, m) => `2026-05-01T10:0${m}:00.000Z`);
      const seeded: RollupIncrement[] = [];
      // 2 functions × 130 versions × 5 minutes: more buckets than one page, however an adapter pages.
      for (const policyFunction of ['eligible', 'rate']) {
        for (let version = 1; version <= 130; version += 1) {
          for (const minute of minutes) seeded.push(bucket({ policyFunction, version, minute, count: version, failures: 1, timeSum: 1, timeSquares: 1, max: version }));
          seeded.push(bucket({ policyFunction, version, minute: '2026-04-30T10:00:00.000Z', count: 1000 }));
        }
      }
      await rollups.add(tenant, seeded);
      await other.rollups.add(tenant, [bucket({ policyFunction: 'rate', version: 7, minute: minutes[0]!, count: 3, max: 99 })]);
      const window = { from: minutes[0]!, to: '2026-05-01T10:59:00.000Z' };
      const all = await rollups.totals(tenant, window);
      expect(all).toHaveLength(260);
      const rate7 = { policyModule: 'lending.loan', policyFunction: 'rate', version: 7, count: 38, failures: 5, timeSum: 7.5, timeSquares: 11.25, max: 99, buckets: 5 };
      expect(all.find((t) => t.policyFunction === 'rate' && t.version === 7)).toEqual(rate7);
      expect(all.every((t) => t.buckets === 5 && t.failures === 5)).toBe(true);
      expect(all.reduce((sum, t) => sum + t.count, 0)).toBe(2 * 5 * ((130 * 131) / 2) + 3);
      const rate = await rollups.totals(tenant, { ...window, policyModule: 'lending.loan', policyFunction: 'rate' });
      expect(rate.map((t) => t.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 130 }, (_, i) => i + 1));
      expect(await rollups.totals(tenant, { ...window, policyModule: 'lending.loan', policyFunction: 'rate', version: 7 })).toEqual([rate7]);
      expect(await rollups.totals(tenant, { ...window, policyModule: 'lending.loan', policyFunction: 'rate', version: 131 })).toEqual([]);
      expect(await rollups.totals(tenant, { from: '2026-04-30T00:00:00Z', to: '2026-04-30T23:59:00Z', policyModule: 'lending.loan', policyFunction: 'eligible', version: 3 })).toMatchObject([{ count: 1000, buckets: 1 }]);
      await expect(rollups.totals(tenant, { ...window, policyModule: '' })).rejects.toBeInstanceOf(StoreArgumentError);
    }, 90_000); // FerretDB writes its 1,300 buckets one at a time: about 22 s alone, more beside other work
  });
}

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRedis } from '../../../test/support/test-redis.js';
import type { CompileOutcome } from '../../engine/index.js';
import { openSqliteStore, type Store } from '../../store/index.js';
import { createRedisActivationNotices, type ActivationChange, type ActivationNotices } from '../activation-notices.js';
import { createBuiltinVersions } from '../builtin-versions.js';
import { createPolicyCatalog } from '../policy-catalog.js';
import type { PolicyRepository } from '../policy-store.js';
import { createVersionResolver, type VersionResolverDeps } from '../version-resolver.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const compiled: CompileOutcome = {
  kind: 'compiled',
  ok: true,
  module: { moduleName: 'acme.pricing', locale: 'en-US', functions: [{ name: 'price', params: [], returnType: 'Int' }], workflows: [] },
  diagnostics: [],
  executionTimeMs: 1,
};
const reference = { policyModule: 'acme.pricing', policyFunction: 'price' };
const builtins = createBuiltinVersions([]);

async function openStore(): Promise<Store> {
  const store = await openSqliteStore(':memory:');
  closers.push(() => store.close());
  return store;
}

/** The store's policies, counting the reads of the active version. */
function counting(policies: PolicyRepository): { policies: PolicyRepository; reads: () => number } {
  let reads = 0;
  const headActivation: PolicyRepository['headActivation'] = (tenantId, policyModule) => {
    reads += 1;
    return policies.headActivation(tenantId, policyModule);
  };
  return { policies: Object.assign(Object.create(policies) as PolicyRepository, { headActivation }), reads: () => reads };
}

/** One process's notices on a channel of this test: its own publisher and subscriber connections. */
async function processNotices(channel: string): Promise<{ notices: ActivationNotices; subscriber: Redis }> {
  const publisher = await connectRedis();
  const subscriber = await connectRedis();
  const notices = await createRedisActivationNotices({ publisher, subscriber, channel });
  closers.push(async () => {
    await notices.close();
    await publisher.quit();
  });
  return { notices, subscriber };
}

function catalogOver(store: Store, deps: Partial<VersionResolverDeps> = {}) {
  const versions = createVersionResolver({ policies: store.policies, builtins, ...deps });
  const catalog = createPolicyCatalog({ policies: store.policies, audit: { append: async () => ({}) as never }, compile: async () => compiled, builtins, versions });
  return { versions, catalog };
}

async function activeVersion(resolver: ReturnType<typeof createVersionResolver>): Promise<number | undefined> {
  const resolution = await resolver.resolve('acme', reference);
  return resolution.ok ? resolution.policy.version : undefined;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('active version cache', () => {
  it('asks the store once per time limit, and the process that deploys sees its version at once', async () => {
    const store = await openStore();
    const { policies, reads } = counting(store.policies);
    const { versions, catalog } = catalogOver(store, { policies, activeVersionCacheMs: 60_000 });
    await catalog.deploy('acme', { source: 'v1', locale: 'en-US' }, 'alice');
    for (let i = 0; i < 5; i++) expect(await activeVersion(versions)).toBe(1);
    expect(reads()).toBe(1);
    await catalog.deploy('acme', { source: 'v2', locale: 'en-US' }, 'alice');
    expect(await activeVersion(versions)).toBe(2);
    await catalog.rollback('acme', 'acme.pricing', 1, 'alice');
    expect(await activeVersion(versions)).toBe(1);
  });

  it('without notices, another process answers with the old version no longer than the time limit', async () => {
    const store = await openStore();
    const writer = catalogOver(store);
    const reader = catalogOver(store, { activeVersionCacheMs: 100 }).versions;
    await writer.catalog.deploy('acme', { source: 'v1', locale: 'en-US' }, 'alice');
    expect(await activeVersion(reader)).toBe(1);
    await writer.catalog.deploy('acme', { source: 'v2', locale: 'en-US' }, 'alice');
    expect(await activeVersion(reader)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await activeVersion(reader)).toBe(2);
  });

  it('does not keep what a read began before a change and finished after it', async () => {
    const store = await openStore();
    let reads = 0;
    let hold: Promise<void> | null = null;
    const headActivation: PolicyRepository['headActivation'] = async (tenantId, policyModule) => {
      reads += 1;
      const head = await store.policies.headActivation(tenantId, policyModule);
      if (hold) await hold;
      return head;
    };
    const policies = Object.assign(Object.create(store.policies) as PolicyRepository, { headActivation });
    const { versions, catalog } = catalogOver(store, { policies, activeVersionCacheMs: 60_000 });
    await catalog.deploy('acme', { source: 'v1', locale: 'en-US' }, 'alice');
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const slow = activeVersion(versions);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await versions.activationChanged('acme', 'acme.pricing');
    release();
    await slow;
    hold = null;
    const before = reads;
    await activeVersion(versions);
    expect(reads - before).toBe(1);
  });

  it('0 asks the store every time', async () => {
    const store = await openStore();
    const { policies, reads } = counting(store.policies);
    const { versions, catalog } = catalogOver(store, { policies, activeVersionCacheMs: 0 });
    await catalog.deploy('acme', { source: 'v1', locale: 'en-US' }, 'alice');
    const before = reads();
    for (let i = 0; i < 3; i++) await activeVersion(versions);
    expect(reads() - before).toBe(3);
  });

  it('a deploy or rollback in one process ends the other processes’ cached versions over Redis', async () => {
    const store = await openStore();
    const channel = `test-activations-${randomUUID()}`;
    const writing = await processNotices(channel);
    const reading = await processNotices(channel);
    const writer = catalogOver(store, { notices: writing.notices });
    // A time limit no test waits for: only the notice can end the cached version.
    const reader = catalogOver(store, { activeVersionCacheMs: 60_000, notices: reading.notices }).versions;
    await writer.catalog.deploy('acme', { source: 'v1', locale: 'en-US' }, 'alice');
    expect(await activeVersion(reader)).toBe(1);
    await writer.catalog.deploy('acme', { source: 'v2', locale: 'en-US' }, 'alice');
    await eventually(async () => (await activeVersion(reader)) === 2);
    await writer.catalog.rollback('acme', 'acme.pricing', 1, 'alice');
    await eventually(async () => (await activeVersion(reader)) === 1);
  });

  it('forgets everything when its subscription reconnects (notices may have gone past)', async () => {
    const { notices, subscriber } = await processNotices(`test-activations-${randomUUID()}`);
    const heard: ActivationChange[] = [];
    notices.listen((change) => heard.push(change));
    await notices.announce('acme', 'acme.pricing');
    await eventually(async () => heard.length >= 2);
    expect(heard.slice(0, 2)).toEqual([
      { tenantId: 'acme', policyModule: 'acme.pricing' },
      { tenantId: 'acme', policyModule: 'acme.pricing' },
    ]);
    subscriber.disconnect(true);
    await eventually(async () => heard.includes(null));
  });
});

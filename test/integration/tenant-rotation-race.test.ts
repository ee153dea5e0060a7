import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { createTenantService, TenantSecretsChangedError, type TenantRepository } from '../../src/tenants/index.js';
import { describeWithMongo } from '../support/mongo-env.js';
import { mongoTarget, sqliteTarget, type StoreTarget } from '../support/store-targets.js';

/** Resolves for everyone once `parties` callers have arrived. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const everyone = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    arrived += 1;
    if (arrived === parties) release();
    await everyone;
  };
}

/** The repository of `store`, holding each reader of the newest secrets until `wait` resolves. */
function pausedAfterRead(store: Store, wait: () => Promise<void>): TenantRepository {
  return {
    ...store.tenants,
    async activeSecrets(tenantId) {
      const secrets = await store.tenants.activeSecrets(tenantId);
      await wait();
      return secrets;
    },
  };
}

function rotationRaceSuite(makeTarget: () => StoreTarget) {
  let target: StoreTarget;

  beforeEach(() => {
    target = makeTarget();
  });
  afterEach(async () => {
    await target.dispose();
  });

  it('two rotations on separate connections that both read version 1: one adds version 2, the other says to retry', async () => {
    const [first, second] = [await target.connect(), await target.connect()];
    await createTenantService(first.tenants).register('acme');
    const bothRead = barrier(2);

    const outcomes = await Promise.allSettled([
      createTenantService(pausedAfterRead(first, bothRead)).rotateSecret('acme'),
      createTenantService(pausedAfterRead(second, bothRead)).rotateSecret('acme'),
    ]);

    const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(won.map((s) => s.version)).toEqual([2]);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(TenantSecretsChangedError);
    expect((lost[0] as Error).message).toMatch(/changed concurrently .*retry the rotation/);
    expect((await second.tenants.activeSecrets('acme')).map((s) => [s.version, s.secret])).toEqual([
      [2, won[0]!.secret],
      [1, expect.any(String)],
    ]);

    // Retrying builds on the winner's secret.
    const retried = await createTenantService(second.tenants).rotateSecret('acme');
    expect(retried.version).toBe(3);
    expect((await first.tenants.activeSecrets('acme')).map((s) => s.version)).toEqual([3, 2]);
  });

  it('of many concurrent rotations, each adds its own version or says the secrets changed', async () => {
    const connections = await Promise.all(Array.from({ length: 6 }, () => target.connect()));
    await createTenantService(connections[0]!.tenants).register('acme');

    const outcomes = await Promise.allSettled(connections.map((store) => createTenantService(store.tenants).rotateSecret('acme')));

    const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(TenantSecretsChangedError);
    }
    expect(won.length).toBeGreaterThan(0);
    const versions = won.map((s) => s.version).sort((a, b) => b - a);
    expect(new Set(versions).size).toBe(versions.length);
    const active = await connections[0]!.tenants.activeSecrets('acme');
    expect(active[0]).toEqual(won.find((s) => s.version === versions[0]));
  });
}

describe('secret rotation races on SQLite', () => {
  rotationRaceSuite(sqliteTarget);
});

describeWithMongo('secret rotation races on MongoDB', (url) => {
  rotationRaceSuite(() => mongoTarget(url));
});

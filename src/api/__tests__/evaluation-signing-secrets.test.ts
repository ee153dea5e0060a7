import { describe, expect, it } from 'vitest';
import type { SigningSecret } from '../../tenants/index.js';
import { createSigningSecretCache } from '../routes/evaluation-signing-secrets.js';

const secret = (version: number): SigningSecret => ({ version, secret: `s${version}`, createdAt: '2026-01-01T00:00:00.000Z' });

// The repository is the edge of this unit: a stand-in counts the lookups that reach it.
function repository() {
  const lookups: string[] = [];
  const stored = new Map<string, SigningSecret[]>([['acme', [secret(1)]]]);
  let failNext = false;
  return {
    lookups,
    stored,
    failOnce: () => (failNext = true),
    async activeSecrets(tenantId: string) {
      lookups.push(tenantId);
      if (failNext) {
        failNext = false;
        throw new Error('store down');
      }
      return stored.get(tenantId) ?? [];
    },
  };
}

describe('signing secret cache', () => {
  it('asks the store once per tenant per ttl, sharing a lookup in flight', async () => {
    let time = 0;
    const repo = repository();
    const cache = createSigningSecretCache(repo, { ttlMs: 1000, now: () => time });
    const [a, b] = await Promise.all([cache.activeSecrets('acme'), cache.activeSecrets('acme')]);
    expect(a).toEqual([secret(1)]);
    expect(b).toEqual([secret(1)]);
    expect(await cache.activeSecrets('other')).toEqual([]);
    time = 999;
    await cache.activeSecrets('acme');
    expect(repo.lookups).toEqual(['acme', 'other']);
  });

  it('sees a rotation once the ttl has passed', async () => {
    let time = 0;
    const repo = repository();
    const cache = createSigningSecretCache(repo, { ttlMs: 1000, now: () => time });
    await cache.activeSecrets('acme');
    repo.stored.set('acme', [secret(2), secret(1)]);
    expect(await cache.activeSecrets('acme')).toEqual([secret(1)]);
    time = 1000;
    expect(await cache.activeSecrets('acme')).toEqual([secret(2), secret(1)]);
  });

  it('does not remember a failed lookup', async () => {
    const repo = repository();
    const cache = createSigningSecretCache(repo, { ttlMs: 60_000 });
    repo.failOnce();
    await expect(cache.activeSecrets('acme')).rejects.toThrow('store down');
    expect(await cache.activeSecrets('acme')).toEqual([secret(1)]);
    expect(repo.lookups).toEqual(['acme', 'acme']);
  });

  it('keeps at most maxTenants entries, dropping the oldest', async () => {
    const repo = repository();
    const cache = createSigningSecretCache(repo, { ttlMs: 60_000, maxTenants: 2 });
    for (const tenant of ['t1', 't2', 't3', 't2', 't1']) await cache.activeSecrets(tenant);
    expect(repo.lookups).toEqual(['t1', 't2', 't3', 't1']);
  });
});

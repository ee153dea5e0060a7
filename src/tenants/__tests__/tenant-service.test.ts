import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import {
  createTenantService,
  InvalidTenantIdError,
  TenantExistsError,
  TenantSecretsChangedError,
  UnknownTenantError,
} from '../index.js';
import type { TenantRepository } from '../tenant-store.js';

let store: SqliteStore;
let counter = 0;
const service = () =>
  createTenantService(store.tenants, {
    now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, counter)),
    generateSecret: () => `secret-${(counter += 1)}`,
  });

beforeEach(async () => {
  counter = 0;
  store = await openSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

describe('tenant service', () => {
  it('registers a tenant with secret version 1', async () => {
    const registration = await service().register('acme');
    expect(registration).toEqual({
      tenant: { tenantId: 'acme', createdAt: '2026-01-01T00:00:00.000Z' },
      secret: { version: 1, secret: 'secret-1', createdAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(await store.tenants.get('acme')).toEqual(registration.tenant);
  });

  it('refuses to register a tenant twice', async () => {
    await service().register('acme');
    await expect(service().register('acme')).rejects.toBeInstanceOf(TenantExistsError);
    expect((await store.tenants.activeSecrets('acme')).map((s) => s.secret)).toEqual(['secret-1']);
  });

  it('rotates: the new secret and the one before it stay valid', async () => {
    const tenants = service();
    await tenants.register('acme');
    expect((await tenants.rotateSecret('acme')).version).toBe(2);
    expect((await store.tenants.activeSecrets('acme')).map((s) => s.version)).toEqual([2, 1]);
    expect((await tenants.rotateSecret('acme')).version).toBe(3);
    expect((await store.tenants.activeSecrets('acme')).map((s) => s.version)).toEqual([3, 2]);
  });

  it('refuses to rotate an unknown tenant', async () => {
    await expect(service().rotateSecret('ghost')).rejects.toBeInstanceOf(UnknownTenantError);
  });

  it('says the secrets changed concurrently, and adds nothing, when another rotation takes the version first', async () => {
    await service().register('acme');
    // Another rotation lands between this one's read of the newest secret and its write.
    const racing: TenantRepository = {
      ...store.tenants,
      async activeSecrets(tenantId) {
        const seen = await store.tenants.activeSecrets(tenantId);
        await store.tenants.addSecret(tenantId, { version: seen[0]!.version + 1, secret: 'theirs', createdAt: '2026-01-01T00:00:09.000Z' });
        return seen;
      },
    };
    const error = await createTenantService(racing).rotateSecret('acme').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TenantSecretsChangedError);
    expect(error).toMatchObject({ tenantId: 'acme', version: 2, status: 409, code: 'ERR_TENANT_SECRETS_CHANGED', expose: true });
    expect((error as Error).message).toBe(
      'the signing secrets of tenant `acme` changed concurrently (another rotation added version 2); nothing was added: retry the rotation',
    );
    expect((await store.tenants.activeSecrets('acme')).map((s) => s.secret)).toEqual(['theirs', 'secret-1']);
    expect((await service().rotateSecret('acme')).version).toBe(3);
  });

  it('refuses ill-formed tenant ids before touching the store', async () => {
    await expect(service().register('a b')).rejects.toBeInstanceOf(InvalidTenantIdError);
    await expect(service().register('x'.repeat(65))).rejects.toBeInstanceOf(InvalidTenantIdError);
    expect(await store.tenants.get('a b')).toBeNull();
  });

  it('generates distinct URL-safe 256-bit secrets by default', async () => {
    const tenants = createTenantService(store.tenants);
    const { secret } = await tenants.register('acme');
    const rotated = await tenants.rotateSecret('acme');
    expect(secret.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(secret.secret);
  });
});

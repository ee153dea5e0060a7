import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createTenantService, InvalidTenantIdError, TenantExistsError, UnknownTenantError } from '../index.js';

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

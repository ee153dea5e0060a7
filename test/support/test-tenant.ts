// Tenants and signing keys made fresh for each suite, so suites sharing a store or Redis never collide.
import { randomBytes } from 'node:crypto';
import { createJwtKeyRing, type JwtKeyRing } from '../../src/auth/index.js';
import type { Store } from '../../src/store/index.js';
import { createTenantService } from '../../src/tenants/index.js';

export interface TenantInfo {
  tenantId: string;
  secret: string;
}

/** Registers `<label>-<random hex>` and returns it with its request-signing secret. */
export async function registerTenant(store: Store, label: string): Promise<TenantInfo> {
  const tenantId = `${label}-${randomBytes(4).toString('hex')}`;
  const { secret: { secret } } = await createTenantService(store.tenants).register(tenantId);
  return { tenantId, secret };
}

export function newKeyRing(): JwtKeyRing {
  return createJwtKeyRing([{ kid: 'k1', secret: randomBytes(32).toString('base64url') }], 'test');
}

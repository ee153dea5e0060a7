import type { SigningSecret, TenantRepository } from '../../tenants/index.js';

export interface SigningSecretCacheOptions {
  /** How long a tenant's secrets are reused; default 1000 ms. */
  ttlMs?: number;
  /** Most tenants remembered; the oldest entry goes first. Default 10,000. */
  maxTenants?: number;
  now?: () => number;
}

interface Entry {
  expiresAt: number;
  secrets: Promise<SigningSecret[]>;
}

/**
 * Every signed request needs its tenant's active secrets: a store query (a network round trip on
 * MongoDB) per request. Reusing them for a second bounds that to one query per tenant per second.
 * The cost is a grace of at most `ttlMs` after a rotation: the new secret is accepted that much
 * later, the retired one that much longer. Unknown tenants are remembered too (as having no
 * secrets), so a flood of made-up tenant ids cannot reach the store at request rate.
 */
export function createSigningSecretCache(
  tenants: Pick<TenantRepository, 'activeSecrets'>,
  options: SigningSecretCacheOptions = {},
): Pick<TenantRepository, 'activeSecrets'> {
  const ttlMs = options.ttlMs ?? 1000;
  const maxTenants = options.maxTenants ?? 10_000;
  const now = options.now ?? Date.now;
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`ttlMs must be a non-negative number, got ${ttlMs}`);
  if (!Number.isInteger(maxTenants) || maxTenants < 1) throw new RangeError(`maxTenants must be a positive integer, got ${maxTenants}`);
  const entries = new Map<string, Entry>();

  return {
    activeSecrets(tenantId) {
      const time = now();
      const cached = entries.get(tenantId);
      if (cached !== undefined && cached.expiresAt > time) return cached.secrets;
      entries.delete(tenantId);
      // Concurrent requests of one tenant share the one query in flight.
      const secrets = tenants.activeSecrets(tenantId);
      const entry: Entry = { expiresAt: time + ttlMs, secrets };
      entries.set(tenantId, entry);
      // A failed lookup is not remembered: the next request asks the store again.
      secrets.catch(() => {
        if (entries.get(tenantId) === entry) entries.delete(tenantId);
      });
      if (entries.size > maxTenants) entries.delete(entries.keys().next().value!);
      return secrets;
    },
  };
}

import { createProgramCache, type ProgramCache } from './program-cache.js';

export interface TenantProgramCache<T> {
  get(tenantId: string, key: string): T | undefined;
  set(tenantId: string, key: string, value: T): void;
  readonly tenants: number;
}

/**
 * Compiled programs kept apart per tenant: one tenant's sources can neither evict another's
 * programs nor tell, by timing, whether another tenant compiled a source. Each tenant has its own
 * LRU of `entriesPerTenant`; the tenants themselves are an LRU of `maxTenants`, so memory stays
 * bounded by `maxTenants × entriesPerTenant` programs per thread.
 */
export function createTenantProgramCache<T>(entriesPerTenant: number, maxTenants: number): TenantProgramCache<T> {
  if (!Number.isInteger(maxTenants) || maxTenants < 1) throw new RangeError(`maxTenants must be a positive integer, got ${maxTenants}`);
  const caches = createProgramCache<ProgramCache<T>>(maxTenants);
  return {
    get(tenantId, key) {
      return caches.get(tenantId)?.get(key);
    },
    set(tenantId, key, value) {
      if (entriesPerTenant === 0) return;
      let cache = caches.get(tenantId);
      if (cache === undefined) {
        cache = createProgramCache<T>(entriesPerTenant);
        caches.set(tenantId, cache);
      }
      cache.set(key, value);
    },
    get tenants() {
      return caches.size;
    },
  };
}

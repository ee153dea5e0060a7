import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProgramCache, programCacheKey } from '../program-cache.js';
import { createTenantProgramCache } from '../tenant-program-cache.js';

describe('programCacheKey', () => {
  it('is the SHA-256 hex of locale, NUL, source', () => {
    const expected = createHash('sha256').update('de-DE\0Modul a.').digest('hex');
    expect(programCacheKey('de-DE', 'Modul a.')).toBe(expected);
  });

  it('separates locale from source so shifted boundaries do not collide', () => {
    expect(programCacheKey('en-US', 'XModule a.')).not.toBe(programCacheKey('en-USX', 'Module a.'));
  });
});

describe('createProgramCache', () => {
  it('evicts the least recently used entry beyond its size', () => {
    const cache = createProgramCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('replaces a value without growing', () => {
    const cache = createProgramCache<string>(2);
    cache.set('a', 'old');
    cache.set('a', 'new');
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe('new');
  });

  it('keeps nothing when its size is 0', () => {
    const cache = createProgramCache<number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('rejects a negative or fractional size', () => {
    expect(() => createProgramCache(-1)).toThrow(RangeError);
    expect(() => createProgramCache(1.5)).toThrow(RangeError);
  });
});

describe('createTenantProgramCache', () => {
  it("keeps each tenant's programs in its own LRU: one tenant cannot evict another's", () => {
    const cache = createTenantProgramCache<string>(2, 8);
    cache.set('b', 'k', 'b-program');
    for (const key of ['k1', 'k2', 'k3', 'k4']) cache.set('a', key, `a-${key}`);
    expect(cache.get('b', 'k')).toBe('b-program');
    expect(cache.get('a', 'k1')).toBeUndefined();
    expect(cache.get('a', 'k4')).toBe('a-k4');
    // The same key is another entry under another tenant.
    expect(cache.get('a', 'k')).toBeUndefined();
  });

  it('forgets the least recently used tenant beyond maxTenants', () => {
    const cache = createTenantProgramCache<number>(4, 2);
    cache.set('t1', 'k', 1);
    cache.set('t2', 'k', 2);
    expect(cache.get('t1', 'k')).toBe(1); // t1 is now the most recent tenant
    cache.set('t3', 'k', 3);
    expect(cache.tenants).toBe(2);
    expect(cache.get('t2', 'k')).toBeUndefined();
    expect([cache.get('t1', 'k'), cache.get('t3', 'k')]).toEqual([1, 3]);
  });

  it('keeps nothing when entriesPerTenant is 0 and rejects a bad tenant bound', () => {
    const cache = createTenantProgramCache<number>(0, 2);
    cache.set('t1', 'k', 1);
    expect([cache.get('t1', 'k'), cache.tenants]).toEqual([undefined, 0]);
    expect(() => createTenantProgramCache(1, 0)).toThrow(RangeError);
  });
});

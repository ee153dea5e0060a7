import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProgramCache, programCacheKey } from '../program-cache.js';

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

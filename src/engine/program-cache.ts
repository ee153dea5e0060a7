import { createHash } from 'node:crypto';

/** The cache key of a compiled program: SHA-256 hex of `locale + "\0" + source`. */
export function programCacheKey(locale: string, source: string): string {
  return createHash('sha256').update(locale).update('\0').update(source).digest('hex');
}

export interface ProgramCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  readonly size: number;
}

/**
 * Least-recently-used cache bounded by entry count. A Map iterates in insertion order, so
 * re-inserting on every hit keeps the oldest entry first and eviction O(1).
 */
export function createProgramCache<T>(maxEntries: number): ProgramCache<T> {
  if (!Number.isInteger(maxEntries) || maxEntries < 0) {
    throw new RangeError(`cache size must be a non-negative integer, got ${maxEntries}`);
  }
  const entries = new Map<string, T>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      if (maxEntries === 0) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
  };
}

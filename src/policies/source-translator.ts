import { LRUCache } from 'lru-cache';
import type { Locale } from '../language/index.js';
import { printSource, type SourceFormatter } from './engine-work.js';

/** Prints a stored module source in another locale, for a tenant. */
export type SourceTranslator = (tenantId: string, source: { text: string; hash: string; locale: string }, target: Locale) => Promise<string>;

export interface SourceTranslatorOptions {
  /** Characters of translated text kept per tenant (UTF-16 code units, so about twice that in bytes). Default 512 Ki. */
  charsPerTenant?: number;
  /** Tenants whose translations are kept, the least recently active tenant's going first. Default 16. */
  tenants?: number;
}

/**
 * The formatter (`policy fmt --locale`) applied to a deployed source, run in the engine's threads
 * like a deploy's compile. A version never changes, so each (source, locale) is translated once and
 * kept, per tenant: a source another tenant had translated is not answered any faster (no timing
 * tells one tenant what another viewed), and one tenant's translations never evict another's.
 */
export function createSourceTranslator(format: SourceFormatter, options: SourceTranslatorOptions = {}): SourceTranslator {
  const charsPerTenant = options.charsPerTenant ?? 512 * 1024;
  const caches = new LRUCache<string, LRUCache<string, string>>({ max: options.tenants ?? 16 });
  const cacheOf = (tenantId: string) => {
    let cache = caches.get(tenantId);
    if (cache === undefined) {
      cache = new LRUCache<string, string>({ maxSize: charsPerTenant, sizeCalculation: (text) => Math.max(1, text.length) });
      caches.set(tenantId, cache);
    }
    return cache;
  };

  return async (tenantId, source, target) => {
    const key = `${source.hash}\u0000${target}`;
    const cached = caches.get(tenantId)?.get(key);
    if (cached !== undefined) return cached;
    const text = await printSource(format, tenantId, source.text, source.locale, target);
    if (text.length <= charsPerTenant) cacheOf(tenantId).set(key, text);
    return text;
  };
}

import { LRUCache } from 'lru-cache';
import { EngineFailureCode, TIMEOUT_CODE, type FormatOutcome } from '../engine/index.js';
import type { Locale } from '../language/index.js';
import { PolicyRegistryError } from './policy-errors.js';

/** Prints a stored module source in another locale, for a tenant. */
export type SourceTranslator = (tenantId: string, source: { text: string; hash: string; locale: string }, target: Locale) => Promise<string>;

/** Formats a source in the engine (EvaluationService.format): never on the API's event loop. */
export type SourceFormatter = (tenantId: string, source: string, locale: string, targetLocale: string) => Promise<FormatOutcome>;

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
    const outcome = await format(tenantId, source.text, source.locale, target);
    if (!outcome.ok) {
      // A stopped thread, a cancellation or a print past the time limit (a loaded engine) may pass;
      // anything else is a defect (it compiled when deployed).
      if (outcome.code === EngineFailureCode.THREAD_STOPPED || outcome.code === EngineFailureCode.CANCELLED || outcome.code === TIMEOUT_CODE) {
        throw new PolicyRegistryError(503, outcome.code, `the policy source could not be printed in ${target}: ${outcome.error}; retry later`);
      }
      throw new Error(`a stored source of locale ${source.locale} could not be printed in ${target}: ${outcome.error}`);
    }
    if (outcome.text.length <= charsPerTenant) cacheOf(tenantId).set(key, outcome.text);
    return outcome.text;
  };
}

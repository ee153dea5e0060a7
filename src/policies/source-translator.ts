import { LRUCache } from 'lru-cache';
import { format, parse, resolveLocale, type Locale } from '../language/index.js';

/** Prints a stored module source in another locale. */
export type SourceTranslator = (source: { text: string; hash: string; locale: string }, target: Locale) => string;

/** Characters of translated text kept per process (UTF-16 code units, so about twice that in bytes). */
const DEFAULT_CACHE_CHARS = 4 * 1024 * 1024;

/**
 * The formatter (`policy fmt --locale`) applied to a deployed source. It runs on the caller's
 * thread: it parses and prints, with no checking or evaluation, and deployed sources are at most
 * MAX_SOURCE_BYTES. A version never changes, so each (source, locale) is translated once per
 * process and kept while the cache has room.
 */
export function createSourceTranslator(cacheChars: number = DEFAULT_CACHE_CHARS): SourceTranslator {
  const cache = new LRUCache<string, string>({ maxSize: cacheChars, sizeCalculation: (text) => Math.max(1, text.length) });
  return (source, target) => {
    const key = `${source.hash}\u0000${target}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const from = resolveLocale(source.locale);
    if (from === null) throw new Error(`a stored source has the unsupported locale \`${source.locale}\``);
    const parsed = parse(source.text, from);
    // It compiled when deployed, so a parse error here is a defect, not the client's to fix.
    if (parsed.module === null || parsed.diagnostics.some((d) => d.severity === 'error')) {
      throw new Error(`a stored source of locale ${from} no longer parses`);
    }
    const text = format(parsed.module, target);
    if (text.length <= cacheChars) cache.set(key, text);
    return text;
  };
}

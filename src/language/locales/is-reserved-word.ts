import type { Locale } from '../api-types.js';
import { getKeywordIndex } from './keyword-index.js';
import { keywordKey } from './keyword-key.js';

/**
 * Whether a name has to be written in backticks in `locale`: it is a keyword, or a word of a
 * multi-word keyword (such a word alone is a valid name, but quoting it never hurts and keeps
 * `Fail` in `` `Fail` with … `` from joining `with` into `Fail with`).
 */
export function isReservedWord(name: string, locale: Locale): boolean {
  const index = getKeywordIndex(locale);
  return index.allWords.has(keywordKey(name, index.syntax));
}

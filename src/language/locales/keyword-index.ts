import type { Locale } from '../api-types.js';
import { CONCEPTS, type Concept } from './concepts.js';
import { keywordKey } from './keyword-key.js';
import type { LocaleSyntax } from './locale-syntax.js';
import { LOCALE_SYNTAXES } from './locale-syntaxes.js';

/** A keyword of two or more words, found by its first word; `rest` holds the keys of the others. */
export interface KeywordPhrase {
  readonly rest: readonly string[];
  readonly concepts: readonly Concept[];
}

/** Lookup structures the lexer and formatter derive from a locale's keyword table. */
export interface KeywordIndex {
  readonly syntax: LocaleSyntax;
  /** One-word keywords by key. One spelling can serve several concepts (`为` is `as` and `be`). */
  readonly words: ReadonlyMap<string, readonly Concept[]>;
  /** Multi-word keywords by the key of their first word, longest first (longest match wins). */
  readonly phrases: ReadonlyMap<string, readonly KeywordPhrase[]>;
  /** Keys of every word that occurs in any spelling, including words that only occur inside a phrase. */
  readonly allWords: ReadonlySet<string>;
}

function addConcept(map: Map<string, Concept[]>, key: string, concept: Concept): void {
  const concepts = map.get(key);
  if (!concepts) map.set(key, [concept]);
  else if (!concepts.includes(concept)) concepts.push(concept);
}

function buildIndex(syntax: LocaleSyntax): KeywordIndex {
  const words = new Map<string, Concept[]>();
  const phraseConcepts = new Map<string, Concept[]>();
  const allWords = new Set<string>();
  for (const concept of CONCEPTS) {
    for (const spelling of syntax.keywords[concept]) {
      const keys = spelling.split(' ').map((word) => keywordKey(word, syntax));
      for (const key of keys) allWords.add(key);
      addConcept(keys.length === 1 ? words : phraseConcepts, keys.join(' '), concept);
    }
  }
  const phrases = new Map<string, KeywordPhrase[]>();
  for (const [joined, concepts] of phraseConcepts) {
    const [first, ...rest] = joined.split(' ');
    const list = phrases.get(first!) ?? [];
    list.push({ rest, concepts });
    phrases.set(first!, list);
  }
  for (const list of phrases.values()) list.sort((a, b) => b.rest.length - a.rest.length);
  return { syntax, words, phrases, allWords };
}

const INDEXES = new Map<Locale, KeywordIndex>();

export function getKeywordIndex(locale: Locale): KeywordIndex {
  let index = INDEXES.get(locale);
  if (!index) {
    index = buildIndex(LOCALE_SYNTAXES[locale]);
    INDEXES.set(locale, index);
  }
  return index;
}

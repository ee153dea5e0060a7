import type { Locale } from '../api-types.js';
import type { Concept } from './concepts.js';

/**
 * Everything that differs between locales, as data. Spellings of one concept are alternatives;
 * the first is the canonical one the formatter writes. Words of a spelling are separated by one
 * space; a concept with no spelling does not exist in that locale.
 */
export interface LocaleSyntax {
  readonly tag: Locale;
  /** Keywords match regardless of letter case. */
  readonly caseInsensitive: boolean;
  /** Keywords also match with ä→ae, ö→oe, ü→ue, ß→ss (identifiers are never rewritten). */
  readonly germanAsciiSpellings: boolean;
  readonly keywords: Readonly<Record<Concept, readonly string[]>>;
  /**
   * The words of a signal's time limit (`Await "x" within 48 hours`). They are recognised only
   * there, after `Await` and its signal, so they stay ordinary names everywhere else.
   */
  readonly durations: {
    readonly within: readonly string[];
    readonly minutes: readonly string[];
    readonly hours: readonly string[];
    readonly days: readonly string[];
  };
  /** Punctuation the formatter writes; the lexer accepts every form in every locale. */
  readonly punctuation: {
    readonly terminator: string;
    readonly colon: string;
    /** Between list elements, arguments, fields and parameters, including its spacing. */
    readonly comma: string;
    /** Between the variants of an enum declaration, including its spacing. */
    readonly variantSeparator: string;
  };
}

/**
 * What the analysis thread learns about one document, as plain data that crosses the thread
 * boundary: the compiler's diagnostics, the (possibly partial) tree, the words of the source and,
 * when the module checks, the type of every expression.
 */
import type { ValueType } from '../language/checker/index.js';
import type { Diagnostic, Locale, ModuleNode } from '../language/index.js';
import type { Concept } from '../language/locales/index.js';

/** A keyword (with the concepts it stands for) or a name, as it stands in the source. */
export interface SourceWord {
  start: number;
  end: number;
  /** A name without its backticks; a keyword as written. */
  text: string;
  /** Null for a name. */
  concepts: readonly Concept[] | null;
}

export interface Analysis {
  locale: Locale;
  /** Exactly what `compile` reports for the source. */
  diagnostics: Diagnostic[];
  /** Null when nothing could be parsed (a size, locale or header error). */
  module: ModuleNode | null;
  words: SourceWord[];
  /** By node id; null unless the module checks without errors. */
  types: ReadonlyMap<number, ValueType> | null;
}

export type FormatOutcome = { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] };

import type { Span } from '../ast/nodes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Concept } from '../locales/concepts.js';

export type TokenKind =
  | 'keyword'
  | 'ident'
  | 'int'
  | 'float'
  | 'string'
  /** `.` inside a line: field access or a module name separator. */
  | 'dot'
  /** `.` followed by white space, a comment or the end of input: ends a statement or declaration. */
  | 'term'
  | 'colon'
  | 'comma'
  | 'lparen'
  | 'rparen'
  | 'lbracket'
  | 'rbracket'
  | 'plus'
  | 'minus'
  | 'star'
  | 'slash'
  | 'percent'
  | 'assign'
  | 'eq'
  | 'ne'
  | 'lt'
  | 'le'
  | 'gt'
  | 'ge'
  | 'newline'
  | 'indent'
  | 'dedent'
  | 'eof';

/** A token is its own span (offsets into the original source; columns 1-based, end exclusive). */
export interface Token extends Span {
  kind: TokenKind;
  /**
   * Normalised text: an identifier's name (without backticks), a keyword as written (several words
   * for a multi-word keyword), a literal's digits or a symbol.
   */
  text: string;
  /** The concepts a keyword stands for; one spelling may serve several (`为`, `mit`, `and`). */
  concepts: readonly Concept[] | null;
  /** The value of a number or string literal. */
  value: number | string | null;
}

/** A `#` or `//` comment: `text` is what follows the marker, trimmed. */
export interface SourceComment {
  text: string;
  start: number;
  end: number;
  line: number;
  /** True when nothing but white space precedes the comment on its line. */
  ownLine: boolean;
}

export interface TokenizeResult {
  tokens: Token[];
  comments: SourceComment[];
  diagnostics: Diagnostic[];
}

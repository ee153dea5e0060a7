import type { Span } from '../ast/nodes.js';
import {
  ChainedComparison,
  KeywordAsName,
  MissingBlock,
  MissingColon,
  MissingTerminator,
  NestingTooDeep,
  UnexpectedToken,
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticText,
} from '../diagnostics/index.js';
import { MAX_DIAGNOSTICS } from '../lexer/tokenize.js';
import { syntaxDiagnostic } from '../lexer/syntax-diagnostic.js';
import type { SourceComment, Token, TokenizeResult, TokenKind } from '../lexer/token.js';
import type { Concept } from '../locales/concepts.js';
import type { LocaleSyntax } from '../locales/locale-syntax.js';

/** Deepest allowed nesting of blocks, and separately of expressions (docs/language.md §7). */
export const MAX_NESTING = 64;

/** Thrown to abandon the current statement or declaration; caught where the parser re-synchronises. */
export class SyntaxAbort {}
export const ABORT = new SyntaxAbort();

/** Thrown once the diagnostic limit is reached: nothing after it would be shown anyway. */
export class DiagnosticLimitReached {}
export const LIMIT_REACHED = new DiagnosticLimitReached();

/** Codes the parser leaves out on a line that already has a lexical error (one cause, one report). */
const FOLLOW_ON_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  UnexpectedToken.code,
  MissingTerminator.code,
  MissingColon.code,
  MissingBlock.code,
  KeywordAsName.code,
  ChainedComparison.code,
]);

function isLayout(kind: TokenKind): boolean {
  return kind === 'newline' || kind === 'indent' || kind === 'dedent' || kind === 'eof';
}

/** Token cursor, diagnostics, comment attachment and recovery shared by the parser layers. */
export abstract class ParserBase {
  protected pos = 0;
  /** The last token consumed that is not a layout token: where a node or a "missing" report ends. */
  protected lastToken: Token;
  protected readonly diagnostics: Diagnostic[];
  protected exprDepth = 0;
  protected blockDepth = 0;
  private nestingReported = false;
  private commentIndex = 0;
  private readonly noisyLines = new Set<number>();
  protected readonly tokens: Token[];
  private readonly comments: SourceComment[];

  constructor(
    lexed: TokenizeResult,
    protected readonly syntax: LocaleSyntax,
    protected readonly source: string,
  ) {
    this.tokens = lexed.tokens;
    this.comments = lexed.comments;
    this.diagnostics = [...lexed.diagnostics];
    for (const d of lexed.diagnostics) if (d.span) this.noisyLines.add(d.span.line);
    this.lastToken = this.tokens[0]!;
  }

  /** Lexical and syntax diagnostics so far, in the order found. */
  result(): Diagnostic[] {
    return this.diagnostics;
  }

  // ---------- cursor ----------

  protected peek(ahead = 0): Token {
    const i = this.pos + ahead;
    return this.tokens[i < this.tokens.length ? i : this.tokens.length - 1]!;
  }

  protected next(): Token {
    const token = this.tokens[this.pos]!;
    if (token.kind !== 'eof') this.pos++;
    if (!isLayout(token.kind)) this.lastToken = token;
    return token;
  }

  protected at(kind: TokenKind): boolean {
    return this.tokens[this.pos]!.kind === kind;
  }

  protected isKw(token: Token, concept: Concept): boolean {
    return token.concepts !== null && token.concepts.includes(concept);
  }

  protected atKw(concept: Concept): boolean {
    return this.isKw(this.tokens[this.pos]!, concept);
  }

  protected atLineEnd(): boolean {
    return isLayout(this.tokens[this.pos]!.kind);
  }

  /** The canonical spelling of a concept in this locale, for messages. */
  protected spell(concept: Concept): string {
    return this.syntax.keywords[concept][0] ?? concept;
  }

  protected describe(token: Token): string {
    switch (token.kind) {
      case 'newline':
        return 'the end of the line';
      case 'eof':
        return 'the end of the input';
      case 'indent':
        return 'an indented line';
      case 'dedent':
        return 'the end of the block';
      default:
        return `\`${this.source.slice(token.start, token.end)}\``;
    }
  }

  // ---------- diagnostics ----------

  protected report(text: DiagnosticText, span: Span): void {
    if (FOLLOW_ON_CODES.has(text.code) && this.noisyLines.has(span.line)) return;
    this.diagnostics.push(syntaxDiagnostic(text, span));
    this.noisyLines.add(span.line);
    if (this.diagnostics.length >= MAX_DIAGNOSTICS) throw LIMIT_REACHED;
  }

  protected fail(text: DiagnosticText, span: Span): never {
    this.report(text, span);
    throw ABORT;
  }

  /** PL1006 for the current token; at a line end, the last token of the line is underlined. */
  protected unexpected(expected: string): never {
    return this.failAtCurrent((found) => UnexpectedToken.expected(expected, found));
  }

  /** Fails at the current token with the diagnostic `say` words from its description. */
  protected failAtCurrent(say: (found: string) => DiagnosticText): never {
    const token = this.peek();
    const span = isLayout(token.kind) ? this.lastToken : token;
    return this.fail(say(this.describe(token)), span);
  }

  protected expectKw(concept: Concept): Token {
    if (this.atKw(concept)) return this.next();
    return this.unexpected(`\`${this.spell(concept)}\``);
  }

  protected expectKind(kind: TokenKind, shown: string): Token {
    if (this.at(kind)) return this.next();
    return this.unexpected(shown);
  }

  /**
   * A name where one is required. A keyword in its place is reported (PL1013) but taken as the
   * name, so the rest of the statement is still checked.
   */
  protected expectName(what: string): Token {
    const token = this.peek();
    if (token.kind === 'ident') return this.next();
    if (token.kind === 'keyword') {
      this.reportKeywordAsName(token);
      return this.next();
    }
    return this.unexpected(what);
  }

  protected reportKeywordAsName(token: Token): void {
    const text = this.source.slice(token.start, token.end);
    this.report(KeywordAsName(text), token);
  }

  /** The `.` ending a statement or declaration; a missing one is reported and assumed. */
  protected expectTerminator(what: 'statement' | 'declaration'): Token {
    const token = this.peek();
    if (token.kind === 'term') return this.next();
    const shown = this.syntax.punctuation.terminator;
    if (this.atLineEnd()) {
      this.report(MissingTerminator(shown, what), this.lastToken);
      return this.lastToken;
    }
    return this.unexpected(`\`${shown}\``);
  }

  /** The `:` ending a block header; a missing one is reported and assumed. The block starts on the next line. */
  protected expectColon(): Token {
    const token = this.peek();
    const shown = this.syntax.punctuation.colon;
    if (token.kind === 'colon') {
      this.next();
      if (!this.atLineEnd()) this.failAtCurrent((found) => UnexpectedToken.textAfterColon(shown, found));
      return token;
    }
    if (this.atLineEnd()) {
      this.report(MissingColon(shown), this.lastToken);
      return this.lastToken;
    }
    return this.unexpected(`\`${shown}\``);
  }

  // ---------- nesting ----------

  protected reportNesting(span: Span): void {
    if (this.nestingReported) return;
    this.nestingReported = true;
    this.report(NestingTooDeep.source(MAX_NESTING), span);
  }

  /** Enters a nested expression (parentheses, list, call, record, unary operator, list type). */
  protected enter(token: Token): void {
    if (++this.exprDepth > MAX_NESTING) {
      this.reportNesting(token);
      throw ABORT;
    }
  }

  protected leave(): void {
    this.exprDepth--;
  }

  // ---------- comments ----------

  /** Full-line comments (and unclaimed end-of-line ones) before `offset`. */
  protected leadingComments(offset: number): string[] {
    const out: string[] = [];
    while (this.commentIndex < this.comments.length && this.comments[this.commentIndex]!.start < offset) {
      out.push(this.comments[this.commentIndex++]!.text);
    }
    return out;
  }

  /** An end-of-line comment on `line` belongs to the statement or header that ends there. */
  protected claimLineComment(line: number, into: string[]): void {
    const comment = this.comments[this.commentIndex];
    if (comment && comment.line === line && !comment.ownLine) {
      into.push(comment.text);
      this.commentIndex++;
    }
  }

  protected remainingComments(): string[] {
    return this.leadingComments(Number.POSITIVE_INFINITY);
  }

  // ---------- recovery ----------

  /** Skips the rest of the current line; true when an indented block follows it. */
  protected skipLine(): boolean {
    let token = this.peek();
    if (token.kind !== 'indent' && token.kind !== 'dedent') {
      while (token.kind !== 'newline' && token.kind !== 'eof') {
        this.next();
        token = this.peek();
      }
      if (token.kind === 'newline') this.next();
    }
    return this.at('indent');
  }

  /** At an `indent`: skips everything up to and including the matching `dedent`. */
  protected skipIndentedBlock(): void {
    let depth = 0;
    for (;;) {
      const token = this.next();
      if (token.kind === 'indent') depth++;
      else if (token.kind === 'dedent' && --depth === 0) return;
      else if (token.kind === 'eof') return;
    }
  }

  /** Inside a block: skips to the `dedent` that closes it, leaving that `dedent` to the caller. */
  protected skipRestOfBlock(): void {
    let depth = 0;
    for (;;) {
      const token = this.peek();
      if (token.kind === 'eof') return;
      if (token.kind === 'dedent' && depth === 0) return;
      if (token.kind === 'indent') depth++;
      else if (token.kind === 'dedent') depth--;
      this.next();
    }
  }
}

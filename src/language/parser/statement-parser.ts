import type {
  Expr,
  ForEachStmt,
  IfBranch,
  IfStmt,
  MatchCase,
  MatchPattern,
  MatchStmt,
  Statement,
} from '../ast/nodes.js';
import { MissingBlock, suggestName, UnexpectedIndentation, UnexpectedToken } from '../diagnostics/index.js';
import type { Token } from '../lexer/token.js';
import type { Concept } from '../locales/concepts.js';
import { ExpressionParser } from './expression-parser.js';
import { ABORT, MAX_NESTING } from './parser-base.js';
import { spanFrom, spanOf } from './span.js';

const STATEMENT_CONCEPTS: readonly Concept[] = ['let', 'return', 'if', 'match', 'forEach', 'fail'];

/** Statements and indented blocks (docs/language.md §4). */
export abstract class StatementParser extends ExpressionParser {
  /** Set when the previous statement was abandoned, so its `Otherwise` lines are skipped quietly. */
  private previousFailed = false;

  /** Statements up to the `dedent` (or end of input) closing the current block. */
  protected parseStatements(): Statement[] {
    const statements: Statement[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'dedent' || token.kind === 'eof') return statements;
      if (token.kind === 'newline') {
        this.next();
        continue;
      }
      if (token.kind === 'indent') {
        this.next();
        this.report(UnexpectedIndentation.inBlock(), this.peek());
        statements.push(...this.parseNestedStatements(token));
        continue;
      }
      const statement = this.statementOrNull();
      if (statement) statements.push(statement);
    }
  }

  /** After an `indent`: the block's statements and its closing `dedent`. */
  protected parseNestedStatements(header: Token): Statement[] {
    this.blockDepth++;
    let statements: Statement[] = [];
    if (this.blockDepth > MAX_NESTING) {
      this.reportNesting(header);
      this.skipRestOfBlock();
    } else {
      statements = this.parseStatements();
    }
    this.blockDepth--;
    if (this.at('dedent')) this.next();
    return statements;
  }

  /** The indented block after a header (`:` already consumed). */
  protected parseBlock(header: Token): Statement[] {
    if (this.at('newline')) this.next();
    if (!this.at('indent')) {
      this.report(MissingBlock.statements(), header);
      return [];
    }
    this.next();
    return this.parseNestedStatements(header);
  }

  /**
   * Skips the rest of an abandoned line; an indented block after it is parsed for its own
   * problems (when it holds statements) or skipped, and dropped either way.
   */
  protected recoverLine(blockHoldsStatements: boolean): void {
    if (!this.skipLine()) return;
    if (blockHoldsStatements) this.parseNestedStatements(this.next());
    else this.skipIndentedBlock();
  }

  private statementOrNull(): Statement | null {
    const token = this.peek();
    if (this.previousFailed && (this.isKw(token, 'elseIf') || this.isKw(token, 'else'))) {
      this.recoverLine(true);
      return null;
    }
    try {
      const statement = this.parseStatement(token);
      this.previousFailed = false;
      return statement;
    } catch (error) {
      if (error !== ABORT) throw error;
      this.exprDepth = 0;
      this.previousFailed = true;
      this.recoverLine(!this.isKw(token, 'match'));
      return null;
    }
  }

  private parseStatement(token: Token): Statement {
    const leading = this.leadingComments(token.start);
    if (token.kind === 'keyword') {
      if (this.isKw(token, 'let')) return this.parseLet(token, leading);
      if (this.isKw(token, 'return')) return this.parseValueStatement(token, leading, 'Return');
      if (this.isKw(token, 'fail')) return this.parseValueStatement(token, leading, 'Fail');
      if (this.isKw(token, 'if')) return this.parseIf(token, leading);
      if (this.isKw(token, 'match')) return this.parseMatch(token, leading);
      if (this.isKw(token, 'forEach')) return this.parseForEach(token, leading);
      if (this.isKw(token, 'elseIf') || this.isKw(token, 'else')) {
        this.fail(UnexpectedToken.withoutIf(token.text, this.spell('if')), token);
      }
      if (this.isKw(token, 'when')) {
        this.fail(UnexpectedToken.whenOutsideMatch(token.text, this.spell('match')), token);
      }
      if (this.isKw(token, 'define') || this.isKw(token, 'rule') || this.isKw(token, 'module')) {
        this.fail(UnexpectedToken.declarationInRule(token.text), token);
      }
    }
    const expected = STATEMENT_CONCEPTS.map((concept) => `\`${this.spell(concept)}\``).join(', ');
    let guess: string | null = null;
    if (token.kind === 'ident') {
      const byFirstWord = new Map(STATEMENT_CONCEPTS.map((concept) => [this.spell(concept).split(' ')[0]!, this.spell(concept)]));
      const firstWord = suggestName(token.text, byFirstWord.keys());
      if (firstWord !== null) guess = byFirstWord.get(firstWord)!;
    }
    return this.fail(UnexpectedToken.statementExpected(this.describe(token), expected, guess), token.kind === 'eof' ? this.lastToken : token);
  }

  private parseLet(token: Token, leading: string[]): Statement {
    this.next();
    const name = this.expectName('a variable name');
    this.expectKw('be');
    const value = this.parseExpr();
    const end = this.expectTerminator('statement');
    this.claimLineComment(end.line, leading);
    return { kind: 'Let', id: 0, span: spanFrom(token, end), leadingComments: leading, name: name.text, value };
  }

  private parseValueStatement(token: Token, leading: string[], kind: 'Return' | 'Fail'): Statement {
    this.next();
    const value = this.parseExpr();
    const end = this.expectTerminator('statement');
    this.claimLineComment(end.line, leading);
    const span = spanFrom(token, end);
    return kind === 'Return'
      ? { kind, id: 0, span, leadingComments: leading, value }
      : { kind, id: 0, span, leadingComments: leading, message: value };
  }

  /** A block header's condition and `:`; an end-of-line comment after it goes to `leading` when given. */
  private parseHeaderExpr(leading: string[] | null): Expr {
    const condition = this.parseExpr();
    const colon = this.expectColon();
    if (leading) this.claimLineComment(colon.line, leading);
    return condition;
  }

  private parseIf(token: Token, leading: string[]): IfStmt {
    this.next();
    const condition = this.parseHeaderExpr(leading);
    const body = this.parseBlock(token);
    const branches: IfBranch[] = [{ kind: 'IfBranch', id: 0, span: spanFrom(token, this.lastToken), condition, body }];
    let otherwise: Statement[] | null = null;
    for (;;) {
      const next = this.peek();
      if (this.isKw(next, 'elseIf')) {
        let branchCondition: Expr;
        try {
          this.next();
          branchCondition = this.parseHeaderExpr(null);
        } catch (error) {
          if (error !== ABORT) throw error;
          this.exprDepth = 0;
          this.recoverLine(true);
          continue;
        }
        const branchBody = this.parseBlock(next);
        branches.push({
          kind: 'IfBranch',
          id: 0,
          span: spanFrom(next, this.lastToken),
          condition: branchCondition,
          body: branchBody,
        });
      } else if (this.isKw(next, 'else')) {
        try {
          this.next();
          this.expectColon();
        } catch (error) {
          if (error !== ABORT) throw error;
          this.recoverLine(true);
          break;
        }
        otherwise = this.parseBlock(next);
        break;
      } else break;
    }
    return { kind: 'If', id: 0, span: spanFrom(token, this.lastToken), leadingComments: leading, branches, otherwise };
  }

  private parseMatch(token: Token, leading: string[]): MatchStmt {
    this.next();
    const subject = this.parseHeaderExpr(leading);
    const cases: MatchCase[] = [];
    let otherwise: Statement[] | null = null;
    if (this.at('newline')) this.next();
    if (!this.at('indent')) {
      this.report(MissingBlock.cases(this.spell('when')), token);
    } else {
      this.next();
      const reportedBefore = this.diagnostics.length;
      this.blockDepth++;
      if (this.blockDepth > MAX_NESTING) {
        this.reportNesting(token);
        this.skipRestOfBlock();
      } else {
        otherwise = this.parseMatchCases(cases);
      }
      this.blockDepth--;
      if (this.at('dedent')) this.next();
      if (cases.length === 0 && otherwise === null && this.diagnostics.length === reportedBefore) {
        this.report(UnexpectedToken.emptyMatch(this.spell('match'), this.spell('when')), token);
      }
    }
    return {
      kind: 'Match',
      id: 0,
      span: spanFrom(token, this.lastToken),
      leadingComments: leading,
      subject,
      cases,
      otherwise,
    };
  }

  /** The lines of a Match block: `When` cases into `cases`; returns the `Otherwise` block. */
  private parseMatchCases(cases: MatchCase[]): Statement[] | null {
    let otherwise: Statement[] | null = null;
    for (;;) {
      const token = this.peek();
      if (token.kind === 'dedent' || token.kind === 'eof') return otherwise;
      if (token.kind === 'newline') {
        this.next();
        continue;
      }
      if (token.kind === 'indent') {
        this.report(UnexpectedIndentation.inMatch(), this.peek(1));
        this.skipIndentedBlock();
        continue;
      }
      if (this.isKw(token, 'when')) {
        let patterns: MatchPattern[];
        try {
          this.next();
          if (otherwise !== null) {
            this.report(UnexpectedToken.caseAfterElse(token.text, this.spell('else')), token);
          }
          patterns = this.parsePatterns();
          this.expectColon();
        } catch (error) {
          if (error !== ABORT) throw error;
          this.exprDepth = 0;
          this.recoverLine(true);
          continue;
        }
        const body = this.parseBlock(token);
        cases.push({ kind: 'MatchCase', id: 0, span: spanFrom(token, this.lastToken), patterns, body });
      } else if (this.isKw(token, 'else')) {
        try {
          this.next();
          if (otherwise !== null) this.report(UnexpectedToken.secondElse(this.spell('match'), token.text), token);
          this.expectColon();
        } catch (error) {
          if (error !== ABORT) throw error;
          this.recoverLine(true);
          continue;
        }
        const body = this.parseBlock(token);
        otherwise ??= body;
      } else {
        try {
          this.fail(UnexpectedToken.caseExpected(this.spell('when'), this.spell('else'), this.spell('match'), this.describe(token)), token);
        } catch (error) {
          if (error !== ABORT) throw error;
          this.recoverLine(false);
        }
      }
    }
  }

  private parsePatterns(): MatchPattern[] {
    const patterns = [this.parsePattern()];
    while (this.at('comma')) {
      this.next();
      patterns.push(this.parsePattern());
    }
    return patterns;
  }

  private parsePattern(): MatchPattern {
    const token = this.peek();
    const expected = 'an enum variant, an Int or a Text literal';
    if (token.kind === 'minus') {
      this.next();
      const digits = this.peek();
      if (digits.kind !== 'int') return this.unexpected(`an Int literal after \`-\``);
      this.next();
      const magnitude = digits.value as number;
      return { kind: 'IntPattern', id: 0, span: spanFrom(token, digits), value: magnitude === 0 ? 0 : -magnitude };
    }
    if (token.kind === 'int') {
      this.next();
      return { kind: 'IntPattern', id: 0, span: spanOf(token), value: token.value as number };
    }
    if (token.kind === 'string') {
      this.next();
      return { kind: 'TextPattern', id: 0, span: spanOf(token), value: token.value as string };
    }
    if (token.kind === 'ident' || (token.kind === 'keyword' && !this.isKw(token, 'true') && !this.isKw(token, 'false'))) {
      const first = this.expectName(expected);
      if (!this.at('dot')) return { kind: 'VariantPattern', id: 0, span: spanOf(first), enumName: null, variant: first.text };
      this.next();
      const variant = this.expectName('a variant name');
      return { kind: 'VariantPattern', id: 0, span: spanFrom(first, variant), enumName: first.text, variant: variant.text };
    }
    return this.unexpected(expected);
  }

  private parseForEach(token: Token, leading: string[]): ForEachStmt {
    this.next();
    const variable = this.expectName('a loop variable name');
    this.expectKw('in');
    const iterable = this.parseExpr();
    if (this.syntax.keywords.inEnd.length > 0) this.expectKw('inEnd');
    const colon = this.expectColon();
    this.claimLineComment(colon.line, leading);
    const body = this.parseBlock(token);
    return {
      kind: 'ForEach',
      id: 0,
      span: spanFrom(token, this.lastToken),
      leadingComments: leading,
      variable: variable.text,
      iterable,
      body,
    };
  }
}

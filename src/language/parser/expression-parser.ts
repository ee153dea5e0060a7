import type {
  BinaryOp,
  CompareOp,
  Expr,
  ListTypeRef,
  PrimitiveTypeName,
  RecordExpr,
  RecordFieldInit,
  TypeRef,
} from '../ast/nodes.js';
import { isBuiltinName } from '../builtins/builtin-names.js';
import { ChainedComparison } from '../diagnostics/index.js';
import type { Token, TokenKind } from '../lexer/token.js';
import { ARITHMETIC_CONCEPTS, COMPARISON_CONCEPTS, type Concept } from '../locales/concepts.js';
import { ParserBase } from './parser-base.js';
import { spanFrom, spanOf } from './span.js';

type ComparisonOp = CompareOp | 'between';

const COMPARE_KEYWORDS: ReadonlyMap<Concept, ComparisonOp> = new Map<Concept, ComparisonOp>([
  ['eq', 'eq'],
  ['ne', 'ne'],
  ['lt', 'lt'],
  ['gt', 'gt'],
  ['ge', 'ge'],
  ['le', 'le'],
  ['oneOf', 'in'],
  ['contains', 'contains'],
  ['between', 'between'],
]);

const COMPARE_SYMBOLS: Partial<Record<TokenKind, CompareOp>> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'lt',
  le: 'le',
  gt: 'gt',
  ge: 'ge',
};

const ADDITIVE_KEYWORDS: ReadonlyMap<Concept, BinaryOp> = new Map<Concept, BinaryOp>([
  ['plus', 'add'],
  ['minus', 'sub'],
]);
const ADDITIVE_SYMBOLS: Partial<Record<TokenKind, BinaryOp>> = { plus: 'add', minus: 'sub' };

const MULTIPLICATIVE_KEYWORDS: ReadonlyMap<Concept, BinaryOp> = new Map<Concept, BinaryOp>([
  ['times', 'mul'],
  ['dividedBy', 'div'],
  ['modulo', 'mod'],
]);
const MULTIPLICATIVE_SYMBOLS: Partial<Record<TokenKind, BinaryOp>> = { star: 'mul', slash: 'div', percent: 'mod' };

const PRIMITIVE_TYPES: ReadonlyMap<Concept, PrimitiveTypeName> = new Map<Concept, PrimitiveTypeName>([
  ['int', 'Int'],
  ['float', 'Float'],
  ['text', 'Text'],
  ['bool', 'Bool'],
]);

/** Keywords that only ever join operands; in an operand's place they mean the operand is missing. */
const OPERATOR_CONCEPTS: ReadonlySet<Concept> = new Set<Concept>([
  'and',
  'or',
  'setTo',
  ...COMPARISON_CONCEPTS,
  ...ARITHMETIC_CONCEPTS,
]);

function keywordOp<T>(token: Token, table: ReadonlyMap<Concept, T>): T | undefined {
  if (token.concepts === null) return undefined;
  for (const concept of token.concepts) {
    const op = table.get(concept);
    if (op !== undefined) return op;
  }
  return undefined;
}

/**
 * Expressions and types, by precedence climbing (docs/language.md §5, lowest first): `or`, `and`,
 * `not`, one comparison, additive, multiplicative, unary `-`, postfix `.field`, primary.
 *
 * Nesting is counted as the tree grows: brackets, calls, records and unary operators, and also
 * each further operator of a chain (`a + b + c` is a tree two levels deep). So the limit of 64
 * bounds the depth of every tree, and later passes may recurse over it safely.
 */
export abstract class ExpressionParser extends ParserBase {
  protected parseExpr(): Expr {
    let left = this.parseAnd();
    const depth = this.exprDepth;
    while (this.atKw('or')) {
      this.enter(this.next());
      const right = this.parseAnd();
      left = { kind: 'Binary', id: 0, span: spanFrom(left.span, right.span), op: 'or', left, right };
    }
    this.exprDepth = depth;
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    const depth = this.exprDepth;
    while (this.atKw('and')) {
      this.enter(this.next());
      const right = this.parseNot();
      left = { kind: 'Binary', id: 0, span: spanFrom(left.span, right.span), op: 'and', left, right };
    }
    this.exprDepth = depth;
    return left;
  }

  private parseNot(): Expr {
    if (!this.atKw('not')) return this.parseComparison();
    const token = this.next();
    this.enter(token);
    const operand = this.parseNot();
    this.leave();
    return { kind: 'Unary', id: 0, span: spanFrom(token, operand.span), op: 'not', operand };
  }

  private comparisonOp(token: Token): ComparisonOp | undefined {
    return token.kind === 'keyword' ? keywordOp(token, COMPARE_KEYWORDS) : COMPARE_SYMBOLS[token.kind];
  }

  private parseComparison(): Expr {
    const left = this.parseAdditive();
    let op = this.comparisonOp(this.peek());
    if (op === undefined) return left;
    const first = this.comparisonRest(left, op);
    op = this.comparisonOp(this.peek());
    if (op === undefined) return first;
    // Non-associative: consume the whole chain so the report covers it, keep the first comparison.
    let chain = first;
    while (op !== undefined) {
      chain = this.comparisonRest(chain, op);
      op = this.comparisonOp(this.peek());
    }
    this.report(ChainedComparison(this.spell('and')), spanFrom(first.span, chain.span));
    return first;
  }

  private comparisonRest(left: Expr, op: ComparisonOp): Expr {
    this.next();
    if (op === 'between') {
      const low = this.parseAdditive();
      this.expectKw('betweenAnd');
      const high = this.parseAdditive();
      return { kind: 'Between', id: 0, span: spanFrom(left.span, high.span), value: left, low, high };
    }
    const right = this.parseAdditive();
    return { kind: 'Compare', id: 0, span: spanFrom(left.span, right.span), op, left, right };
  }

  private binaryOp(
    keywords: ReadonlyMap<Concept, BinaryOp>,
    symbols: Partial<Record<TokenKind, BinaryOp>>,
  ): BinaryOp | undefined {
    const token = this.peek();
    return token.kind === 'keyword' ? keywordOp(token, keywords) : symbols[token.kind];
  }

  private parseAdditive(): Expr {
    let left = this.parseMultiplicative();
    const depth = this.exprDepth;
    let op = this.binaryOp(ADDITIVE_KEYWORDS, ADDITIVE_SYMBOLS);
    while (op !== undefined) {
      this.enter(this.next());
      const right = this.parseMultiplicative();
      left = { kind: 'Binary', id: 0, span: spanFrom(left.span, right.span), op, left, right };
      op = this.binaryOp(ADDITIVE_KEYWORDS, ADDITIVE_SYMBOLS);
    }
    this.exprDepth = depth;
    return left;
  }

  private parseMultiplicative(): Expr {
    let left = this.parseUnary();
    const depth = this.exprDepth;
    let op = this.binaryOp(MULTIPLICATIVE_KEYWORDS, MULTIPLICATIVE_SYMBOLS);
    while (op !== undefined) {
      this.enter(this.next());
      const right = this.parseUnary();
      left = { kind: 'Binary', id: 0, span: spanFrom(left.span, right.span), op, left, right };
      op = this.binaryOp(MULTIPLICATIVE_KEYWORDS, MULTIPLICATIVE_SYMBOLS);
    }
    this.exprDepth = depth;
    return left;
  }

  private parseUnary(): Expr {
    if (!this.at('minus')) return this.parsePostfix();
    const token = this.next();
    this.enter(token);
    const operand = this.parseUnary();
    this.leave();
    return { kind: 'Unary', id: 0, span: spanFrom(token, operand.span), op: 'neg', operand };
  }

  private parsePostfix(): Expr {
    let expr = this.parsePrimary();
    const depth = this.exprDepth;
    while (this.at('dot')) {
      this.enter(this.next());
      const field = this.expectName('a field name');
      expr = { kind: 'FieldAccess', id: 0, span: spanFrom(expr.span, field), object: expr, field: field.text };
    }
    this.exprDepth = depth;
    return expr;
  }

  private parsePrimary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case 'int':
        this.next();
        return { kind: 'IntLiteral', id: 0, span: spanOf(token), value: token.value as number };
      case 'float':
        this.next();
        return { kind: 'FloatLiteral', id: 0, span: spanOf(token), value: token.value as number };
      case 'string':
        this.next();
        return { kind: 'TextLiteral', id: 0, span: spanOf(token), value: token.value as string };
      case 'lparen': {
        this.next();
        this.enter(token);
        const inner = this.parseExpr();
        const close = this.expectKind('rparen', '`)`');
        this.leave();
        // The parentheses belong to the expression's span, so reports on it underline them too.
        inner.span = spanFrom(token, close);
        return inner;
      }
      case 'lbracket':
        return this.parseList();
      case 'ident':
        return this.parseNamed();
      case 'keyword':
        if (this.isKw(token, 'true') || this.isKw(token, 'false')) {
          this.next();
          return { kind: 'BoolLiteral', id: 0, span: spanOf(token), value: this.isKw(token, 'true') };
        }
        // Built-in names are the same in every locale; `text(x)` is a call even where `Text` is a keyword.
        if (this.peek(1).kind === 'lparen' && isBuiltinName(token.text)) return this.parseNamed();
        if (token.concepts!.some((concept) => OPERATOR_CONCEPTS.has(concept))) return this.unexpected('an expression');
        this.reportKeywordAsName(token);
        return this.parseNamed();
      default:
        return this.unexpected('an expression');
    }
  }

  /** A name, a call `name(args)` or a record construction `Name with field set to value, …`. */
  private parseNamed(): Expr {
    const name = this.next();
    if (this.at('lparen')) {
      const open = this.next();
      this.enter(open);
      const args = this.parseItems('rparen', '`)`');
      const close = this.next();
      this.leave();
      return { kind: 'Call', id: 0, span: spanFrom(name, close), callee: name.text, args };
    }
    if (this.atKw('with')) return this.parseRecord(name);
    return { kind: 'Name', id: 0, span: spanOf(name), name: name.text };
  }

  private parseList(): Expr {
    const open = this.next();
    this.enter(open);
    const elements = this.parseItems('rbracket', '`]`');
    const close = this.next();
    this.leave();
    return { kind: 'List', id: 0, span: spanFrom(open, close), elements };
  }

  /** Comma-separated expressions up to (not including) the closing token, which must follow. */
  private parseItems(close: TokenKind, shown: string): Expr[] {
    const items: Expr[] = [];
    if (this.at(close)) return items;
    for (;;) {
      items.push(this.parseExpr());
      if (this.at('comma')) {
        this.next();
        continue;
      }
      if (!this.at(close)) this.unexpected(`\`${this.syntax.punctuation.comma.trim()}\` or ${shown}`);
      return items;
    }
  }

  /**
   * After a `,` inside a record, `name set to` (or `name =`) continues the record; anything else
   * ends it and the comma belongs to the enclosing list, call or record (docs/language.md §5).
   */
  private continuesRecord(): boolean {
    if (!this.at('comma')) return false;
    const name = this.peek(1);
    const link = this.peek(2);
    return (name.kind === 'ident' || name.kind === 'keyword') && (this.isKw(link, 'setTo') || link.kind === 'assign');
  }

  private parseRecord(typeName: Token): RecordExpr {
    const withToken = this.next();
    this.enter(withToken);
    const fields: RecordFieldInit[] = [];
    for (;;) {
      const field = this.expectName('a field name');
      if (this.atKw('setTo') || this.at('assign')) this.next();
      else this.unexpected(`\`${this.spell('setTo')}\` or \`=\``);
      const value = this.parseExpr();
      fields.push({ kind: 'FieldInit', id: 0, span: spanFrom(field, value.span), name: field.text, value });
      if (!this.continuesRecord()) break;
      this.next();
    }
    this.leave();
    const last = fields[fields.length - 1]!;
    return { kind: 'Record', id: 0, span: spanFrom(typeName, last.span), typeName: typeName.text, fields };
  }

  // ---------- types ----------

  protected parseType(): TypeRef {
    const token = this.peek();
    if (token.kind === 'ident') {
      this.next();
      return { kind: 'NamedType', id: 0, span: spanOf(token), name: token.text };
    }
    if (token.kind !== 'keyword') return this.unexpected('a type');
    const primitive = keywordOp(token, PRIMITIVE_TYPES);
    if (primitive !== undefined) {
      this.next();
      return { kind: 'PrimitiveType', id: 0, span: spanOf(token), name: primitive };
    }
    if (this.isKw(token, 'listOf')) {
      this.next();
      this.enter(token);
      const element = this.parseType();
      this.leave();
      const list: ListTypeRef = { kind: 'ListType', id: 0, span: spanFrom(token, element.span), element };
      return list;
    }
    if (token.concepts!.some((concept) => OPERATOR_CONCEPTS.has(concept))) return this.unexpected('a type');
    this.reportKeywordAsName(token);
    this.next();
    return { kind: 'NamedType', id: 0, span: spanOf(token), name: token.text };
  }
}

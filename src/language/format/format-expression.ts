import type { CompareOp, Expr, MatchPattern } from '../ast/nodes.js';
import type { Locale } from '../api-types.js';
import { isBuiltinName } from '../builtins/builtin-names.js';
import type { Concept } from '../locales/concepts.js';
import type { LocaleSyntax } from '../locales/locale-syntax.js';
import { formatFloat, formatText } from './format-literal.js';
import { formatName } from './format-name.js';

/** Binding strength, docs/language.md §5. A record construction binds weakest of all: its last value runs to the end. */
const RECORD = 0;
const OR = 1;
const AND = 2;
const NOT = 3;
const COMPARE = 4;
const ADDITIVE = 5;
const MULTIPLICATIVE = 6;
const NEGATE = 7;
const POSTFIX = 8;
const PRIMARY = 9;

const BINARY: Record<string, { concept: Concept; precedence: number }> = {
  or: { concept: 'or', precedence: OR },
  and: { concept: 'and', precedence: AND },
  add: { concept: 'plus', precedence: ADDITIVE },
  sub: { concept: 'minus', precedence: ADDITIVE },
  mul: { concept: 'times', precedence: MULTIPLICATIVE },
  div: { concept: 'dividedBy', precedence: MULTIPLICATIVE },
  mod: { concept: 'modulo', precedence: MULTIPLICATIVE },
};

const COMPARE_CONCEPT: Record<CompareOp, Concept> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'lt',
  gt: 'gt',
  ge: 'ge',
  le: 'le',
  in: 'oneOf',
  contains: 'contains',
};

function precedence(expr: Expr): number {
  switch (expr.kind) {
    case 'Binary':
      return BINARY[expr.op]!.precedence;
    case 'Unary':
      return expr.op === 'not' ? NOT : NEGATE;
    case 'Compare':
    case 'Between':
      return COMPARE;
    case 'FieldAccess':
    case 'Call':
      return POSTFIX;
    case 'Record':
      return RECORD;
    default:
      return PRIMARY;
  }
}

/** Prints expressions in one locale with the fewest parentheses that keep the tree. */
export class ExpressionFormatter {
  constructor(
    private readonly syntax: LocaleSyntax,
    private readonly locale: Locale,
  ) {}

  kw(concept: Concept): string {
    return this.syntax.keywords[concept][0]!;
  }

  name(name: string): string {
    return formatName(name, this.locale);
  }

  /** `expr` where the context needs binding strength `min` (0: anything goes). */
  format(expr: Expr, min = RECORD): string {
    const text = this.bare(expr);
    return precedence(expr) < min ? `(${text})` : text;
  }

  private list(items: readonly Expr[]): string {
    return items.map((item) => this.format(item)).join(this.syntax.punctuation.comma);
  }

  private bare(expr: Expr): string {
    switch (expr.kind) {
      case 'IntLiteral':
        return String(expr.value);
      case 'FloatLiteral':
        return formatFloat(expr.value);
      case 'TextLiteral':
        return formatText(expr.value);
      case 'BoolLiteral':
        return this.kw(expr.value ? 'true' : 'false');
      case 'Name':
        return this.name(expr.name);
      case 'List':
        return `[${this.list(expr.elements)}]`;
      case 'Call': {
        // Built-in names are accepted even where they spell a keyword (`text(x)` in en-US).
        const callee = isBuiltinName(expr.callee) ? expr.callee : this.name(expr.callee);
        return `${callee}(${this.list(expr.args)})`;
      }
      case 'FieldAccess':
        return `${this.format(expr.object, POSTFIX)}.${this.name(expr.field)}`;
      case 'Record': {
        const last = expr.fields.length - 1;
        // A record value before a `,` must not be a bare record: it would take the next field.
        const fields = expr.fields.map(
          (field, i) => `${this.name(field.name)} ${this.kw('setTo')} ${this.format(field.value, i < last ? OR : RECORD)}`,
        );
        return `${this.name(expr.typeName)} ${this.kw('with')} ${fields.join(this.syntax.punctuation.comma)}`;
      }
      case 'Unary': {
        if (expr.op === 'not') return `${this.kw('not')} ${this.format(expr.operand, NOT)}`;
        const operand = this.format(expr.operand, NEGATE);
        return operand.startsWith('-') ? `- ${operand}` : `-${operand}`;
      }
      case 'Binary': {
        const { concept, precedence: own } = BINARY[expr.op]!;
        return `${this.format(expr.left, own)} ${this.kw(concept)} ${this.format(expr.right, own + 1)}`;
      }
      case 'Compare':
        return `${this.format(expr.left, ADDITIVE)} ${this.kw(COMPARE_CONCEPT[expr.op])} ${this.format(expr.right, ADDITIVE)}`;
      case 'Between':
        return `${this.format(expr.value, ADDITIVE)} ${this.kw('between')} ${this.format(expr.low, ADDITIVE)} ${this.kw('betweenAnd')} ${this.format(expr.high, ADDITIVE)}`;
    }
  }

  pattern(pattern: MatchPattern): string {
    switch (pattern.kind) {
      case 'IntPattern':
        return String(pattern.value);
      case 'TextPattern':
        return formatText(pattern.value);
      case 'VariantPattern':
        return pattern.enumName === null
          ? this.name(pattern.variant)
          : `${this.name(pattern.enumName)}.${this.name(pattern.variant)}`;
    }
  }
}

/**
 * Generates random VALID modules as locale-free ASTs: records, enums and rules using Let, If,
 * Match, For each, Fail with and Return, with expressions of the right types. Every choice goes
 * through a `Chooser`, so fast-check drives (and shrinks) the generation.
 *
 * The generator keeps to what docs/language.md makes valid without doubt: names are unique in the
 * module (variables never shadow variants or each other), loop variables are fresh, a variable
 * bound inside a block is not used after it, nothing follows a statement that always returns,
 * every rule returns on every path, rules only call rules generated before them (acyclic), and
 * records only contain records generated before them.
 */
import type {
  Declaration,
  EnumDecl,
  Expr,
  IfBranch,
  MatchCase,
  MatchPattern,
  ModuleNode,
  ParamDecl,
  RecordDecl,
  RuleDecl,
  Span,
  Statement,
  TypeRef,
} from '../../src/language/ast/index.js';
import type { JsonValue } from '../../src/language/api-types.js';

export interface Chooser {
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
}

function chance(c: Chooser, percent: number): boolean {
  return c.int(1, 100) <= percent;
}

function pick<T>(c: Chooser, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[c.int(0, items.length - 1)]!;
}

// ---------- types ----------

export type GenType =
  | { k: 'Int' }
  | { k: 'Float' }
  | { k: 'Text' }
  | { k: 'Bool' }
  | { k: 'List'; element: GenType }
  | { k: 'Record'; name: string }
  | { k: 'Enum'; name: string };

const INT: GenType = { k: 'Int' };
const FLOAT: GenType = { k: 'Float' };
const TEXT: GenType = { k: 'Text' };
const BOOL: GenType = { k: 'Bool' };
const listOf = (element: GenType): GenType => ({ k: 'List', element });

function sameType(a: GenType, b: GenType): boolean {
  if (a.k !== b.k) return false;
  if (a.k === 'List' && b.k === 'List') return sameType(a.element, b.element);
  if ((a.k === 'Record' || a.k === 'Enum') && (b.k === 'Record' || b.k === 'Enum')) return a.name === b.name;
  return true;
}

/** Whether a value of `from` may stand where `to` is expected (Int widens to Float, also inside lists). */
function fits(from: GenType, to: GenType): boolean {
  if (from.k === 'Int' && to.k === 'Float') return true;
  if (from.k === 'List' && to.k === 'List') return fits(from.element, to.element);
  return sameType(from, to);
}

// ---------- nodes (positions do not matter: comparisons strip them) ----------

const NO_SPAN: Span = { start: 0, end: 0, line: 1, column: 1, endLine: 1, endColumn: 1 };
const base = { id: 0, span: NO_SPAN };

function typeRef(t: GenType): TypeRef {
  switch (t.k) {
    case 'Int':
    case 'Float':
    case 'Text':
    case 'Bool':
      return { ...base, kind: 'PrimitiveType', name: t.k };
    case 'List':
      return { ...base, kind: 'ListType', element: typeRef(t.element) };
    case 'Record':
    case 'Enum':
      return { ...base, kind: 'NamedType', name: t.name };
  }
}

// ---------- names ----------

/** Names that are keywords in some locale (or close to one): the formatter must put them in backticks where needed. */
const KEYWORDISH = [
  'when', 'wenn', 'als', 'in', 'mit', 'ist', 'Sonst', 'gleich', 'plus', 'true', 'wahr', 'be', 'has', 'given',
  'nicht', 'und', 'or', 'Return', 'each', 'less', 'set', 'to', '为', '返回', '中', '当', '真', '与', '是',
];

const PREFIXES = {
  variable: ['x', 'betrag', 'größe', '年龄', 'émission', '_t', 'scoreValue'],
  field: ['f', 'feld', '字段', 'amount'],
  record: ['Rec', 'Antrag', '记录'],
  enumType: ['Kind', 'Stufe', '类别'],
  variant: ['V', 'Gold', '甲'],
  rule: ['rule', 'regel', '计算'],
} as const;

const TEXT_PIECES = ['a', 'Z', ' ', '"', '\\', '\n', '\t', '#', '//', '「', '」', '“', '”', '。', '，', 'ä', 'ß', '中', '😀', '`', ':', '.', '{', 'u'];
const COMMENTS = ['note', 'Prüfung der Regel', '注释 一', 'see a # b', 'why: rates'];

class Names {
  private counter = 0;
  private readonly keywordish = [...KEYWORDISH];

  constructor(private readonly c: Chooser) {}

  fresh(kind: keyof typeof PREFIXES, allowKeywordish = false): string {
    if (allowKeywordish && this.keywordish.length > 0 && chance(this.c, 15)) {
      const index = this.c.int(0, this.keywordish.length - 1);
      return this.keywordish.splice(index, 1)[0]!;
    }
    return `${pick(this.c, PREFIXES[kind])}${this.counter++}`;
  }
}

// ---------- module shape ----------

interface RecordInfo {
  name: string;
  fields: { name: string; type: GenType }[];
}

interface EnumInfo {
  name: string;
  variants: string[];
}

interface RuleInfo {
  name: string;
  params: { name: string; type: GenType }[];
  returnType: GenType;
}

interface Variable {
  name: string;
  type: GenType;
  /** Let-bound variables may be rebound; parameters and loop variables are left alone. */
  rebindable: boolean;
}

export interface GeneratedModule {
  module: ModuleNode;
  rules: RuleInfo[];
  /** Builds a valid JSON context for a rule's parameters. */
  context(c: Chooser, rule: RuleInfo): Record<string, JsonValue>;
}

export interface GeneratorLimits {
  maxRules: number;
  maxStatements: number;
  maxBlockDepth: number;
  maxExprDepth: number;
  /**
   * Statements in the whole module. Nested blocks multiply (rules × statements × branches per
   * level), and without a cap a rare draw exceeds the language's 64 KiB source limit (PL4001).
   */
  maxModuleStatements: number;
}

export const DEFAULT_LIMITS: GeneratorLimits = { maxRules: 4, maxStatements: 4, maxBlockDepth: 3, maxExprDepth: 3, maxModuleStatements: 80 };

class ModuleGenerator {
  readonly names: Names;
  readonly records: RecordInfo[] = [];
  readonly enums: EnumInfo[] = [];
  readonly rules: RuleInfo[] = [];
  /** Statements generated so far, against `limits.maxModuleStatements`. */
  statementsMade = 0;

  constructor(
    readonly c: Chooser,
    readonly limits: GeneratorLimits,
  ) {
    this.names = new Names(c);
  }

  comments(): string[] {
    return chance(this.c, 15) ? [pick(this.c, COMMENTS)] : [];
  }

  // ----- types -----

  valueType(depth = 0): GenType {
    const options: (() => GenType)[] = [() => INT, () => FLOAT, () => TEXT, () => BOOL];
    if (this.enums.length > 0) options.push(() => ({ k: 'Enum', name: pick(this.c, this.enums).name }));
    if (this.records.length > 0) options.push(() => ({ k: 'Record', name: pick(this.c, this.records).name }));
    if (depth < 2) options.push(() => listOf(this.valueType(depth + 1)));
    return pick(this.c, options)();
  }

  record(name: string): RecordInfo {
    const info = this.records.find((r) => r.name === name);
    if (!info) throw new Error(`no record ${name}`);
    return info;
  }

  enumInfo(name: string): EnumInfo {
    const info = this.enums.find((e) => e.name === name);
    if (!info) throw new Error(`no enum ${name}`);
    return info;
  }

  // ----- declarations -----

  enumDecl(): EnumDecl {
    const name = this.names.fresh('enumType');
    const variants = Array.from({ length: this.c.int(1, 4) }, () => this.names.fresh('variant'));
    this.enums.push({ name, variants });
    return {
      ...base,
      kind: 'EnumDecl',
      name,
      variants: variants.map((v) => ({ ...base, kind: 'EnumVariant' as const, name: v })),
      leadingComments: this.comments(),
    };
  }

  recordDecl(): RecordDecl {
    const name = this.names.fresh('record');
    const fields = Array.from({ length: this.c.int(1, 4) }, () => ({
      name: this.names.fresh('field', true),
      type: this.valueType(),
    }));
    this.records.push({ name, fields });
    return {
      ...base,
      kind: 'RecordDecl',
      name,
      fields: fields.map((f) => ({ ...base, kind: 'FieldDecl' as const, name: f.name, type: typeRef(f.type) })),
      leadingComments: this.comments(),
    };
  }

  ruleDecl(): RuleDecl {
    const name = this.names.fresh('rule');
    const params = Array.from({ length: this.c.int(0, 3) }, () => ({
      name: this.names.fresh('variable', true),
      type: this.valueType(),
    }));
    const returnType = this.valueType();
    const scope: Variable[] = params.map((p) => ({ ...p, rebindable: false }));
    const callable = [...this.rules];
    const body = new RuleBodyGenerator(this, callable, returnType).block(scope, 0, true);
    this.rules.push({ name, params, returnType });
    return {
      ...base,
      kind: 'RuleDecl',
      name,
      params: params.map((p): ParamDecl => ({ ...base, kind: 'Param', name: p.name, type: typeRef(p.type) })),
      returnType: typeRef(returnType),
      body,
      leadingComments: this.comments(),
    };
  }

  module(): ModuleNode {
    const declarations: Declaration[] = [];
    const enumCount = this.c.int(0, 2);
    for (let i = 0; i < enumCount; i++) declarations.push(this.enumDecl());
    const recordCount = this.c.int(0, 3);
    for (let i = 0; i < recordCount; i++) declarations.push(this.recordDecl());
    const ruleCount = this.c.int(1, this.limits.maxRules);
    for (let i = 0; i < ruleCount; i++) declarations.push(this.ruleDecl());
    // Declaration order does not matter (docs/language.md §3): shuffle to prove it.
    for (let i = declarations.length - 1; i > 0; i--) {
      const j = this.c.int(0, i);
      [declarations[i], declarations[j]] = [declarations[j]!, declarations[i]!];
    }
    return {
      ...base,
      kind: 'Module',
      name: ['gen', `m${this.c.int(0, 999)}`],
      declarations,
      leadingComments: this.comments(),
      trailingComments: chance(this.c, 10) ? [pick(this.c, COMMENTS)] : [],
    };
  }

  // ----- context values -----

  value(c: Chooser, type: GenType, depth = 0): JsonValue {
    switch (type.k) {
      case 'Int':
        return c.int(-1000, 1000);
      case 'Float':
        return c.int(-4000, 4000) / 4;
      case 'Text':
        return Array.from({ length: c.int(0, 4) }, () => pick(c, TEXT_PIECES)).join('');
      case 'Bool':
        return chance(c, 50);
      case 'Enum':
        return pick(c, this.enumInfo(type.name).variants);
      case 'List':
        return Array.from({ length: c.int(0, depth > 1 ? 1 : 3) }, () => this.value(c, type.element, depth + 1));
      case 'Record': {
        const out: Record<string, JsonValue> = {};
        for (const f of this.record(type.name).fields) out[f.name] = this.value(c, f.type, depth + 1);
        return out;
      }
    }
  }
}

interface Typed {
  expr: Expr;
  type: GenType;
}

class RuleBodyGenerator {
  private readonly c: Chooser;

  constructor(
    private readonly g: ModuleGenerator,
    private readonly callable: readonly RuleInfo[],
    private readonly returnType: GenType,
  ) {
    this.c = g.c;
  }

  // ----- statements -----

  /**
   * A block of statements. `mustReturn` blocks end with a statement that always returns; other
   * blocks may end with one. A statement that always returns is always the last of its block.
   */
  block(scope: Variable[], depth: number, mustReturn: boolean): Statement[] {
    const local = [...scope];
    const out: Statement[] = [];
    const least = mustReturn ? 0 : 1;
    const room = Math.max(least, this.g.limits.maxModuleStatements - this.g.statementsMade);
    const count = Math.min(this.c.int(least, this.g.limits.maxStatements), room);
    for (let i = 0; i < count; i++) {
      const statement = this.statement(local, depth);
      out.push(statement);
      if (alwaysEnds(statement, this.g)) return out;
    }
    if (mustReturn) {
      out.push(this.returnStmt(local));
    } else if (depth > 0 && chance(this.c, 20)) {
      out.push(chance(this.c, 70) ? this.returnStmt(local) : this.failStmt(local));
    }
    return out;
  }

  private returnStmt(scope: Variable[]): Statement {
    return { ...base, kind: 'Return', value: this.expr(this.returnType, scope, this.g.limits.maxExprDepth).expr, leadingComments: this.g.comments() };
  }

  private failStmt(scope: Variable[]): Statement {
    return { ...base, kind: 'Fail', message: this.expr(TEXT, scope, 2).expr, leadingComments: this.g.comments() };
  }

  private statement(scope: Variable[], depth: number): Statement {
    const leadingComments = this.g.comments();
    this.g.statementsMade++;
    const nested = depth < this.g.limits.maxBlockDepth && this.g.statementsMade < this.g.limits.maxModuleStatements;
    const kinds = ['let', 'let', 'rebind'];
    if (nested) kinds.push('if', 'if', 'match', 'for');
    const kind = pick(this.c, kinds);
    const maxDepth = this.g.limits.maxExprDepth;

    if (kind === 'rebind') {
      const candidates = scope.filter((v) => v.rebindable);
      if (candidates.length > 0) {
        const v = pick(this.c, candidates);
        return { ...base, kind: 'Let', name: v.name, value: this.expr(v.type, scope, maxDepth, true).expr, leadingComments };
      }
    }
    if (kind === 'if') {
      const branches: IfBranch[] = Array.from({ length: this.c.int(1, 3) }, () => ({
        ...base,
        kind: 'IfBranch' as const,
        condition: this.expr(BOOL, scope, maxDepth).expr,
        body: this.block(scope, depth + 1, false),
      }));
      const otherwise = chance(this.c, 50) ? this.block(scope, depth + 1, false) : null;
      return { ...base, kind: 'If', branches, otherwise, leadingComments };
    }
    if (kind === 'match') {
      return this.matchStmt(scope, depth, leadingComments);
    }
    if (kind === 'for') {
      const element = this.g.valueType(1);
      const iterable = this.expr(listOf(element), scope, 2).expr;
      const variable = this.g.names.fresh('variable', true);
      const body = this.block([...scope, { name: variable, type: element, rebindable: false }], depth + 1, false);
      return { ...base, kind: 'ForEach', variable, iterable, body, leadingComments };
    }
    const value = this.expr(this.g.valueType(), scope, maxDepth);
    const name = this.g.names.fresh('variable', true);
    scope.push({ name, type: value.type, rebindable: true });
    return { ...base, kind: 'Let', name, value: value.expr, leadingComments };
  }

  private matchStmt(scope: Variable[], depth: number, leadingComments: string[]): Statement {
    const subjectKinds: GenType[] = [INT, TEXT];
    if (this.g.enums.length > 0) subjectKinds.push({ k: 'Enum', name: pick(this.c, this.g.enums).name }, { k: 'Enum', name: pick(this.c, this.g.enums).name });
    const subjectType = pick(this.c, subjectKinds);
    const subject = this.expr(subjectType, scope, 2).expr;

    let values: MatchPattern[];
    if (subjectType.k === 'Enum') {
      const info = this.g.enumInfo(subjectType.name);
      values = info.variants
        .filter(() => chance(this.c, 70))
        .map((variant) => ({ ...base, kind: 'VariantPattern' as const, enumName: chance(this.c, 30) ? info.name : null, variant }));
    } else if (subjectType.k === 'Int') {
      const distinct = [...new Set(Array.from({ length: this.c.int(1, 4) }, () => this.c.int(0, 20)))];
      values = distinct.map((value) => ({ ...base, kind: 'IntPattern' as const, value }));
    } else {
      const distinct = [...new Set(Array.from({ length: this.c.int(1, 4) }, () => this.textValue()))];
      values = distinct.map((value) => ({ ...base, kind: 'TextPattern' as const, value }));
    }
    if (values.length === 0) {
      return { ...base, kind: 'Let', name: this.g.names.fresh('variable'), value: { ...base, kind: 'IntLiteral', value: 0 }, leadingComments };
    }
    const cases: MatchCase[] = [];
    while (values.length > 0) {
      const take = this.c.int(1, values.length);
      cases.push({ ...base, kind: 'MatchCase', patterns: values.splice(0, take), body: this.block(scope, depth + 1, false) });
    }
    const otherwise = chance(this.c, 40) ? this.block(scope, depth + 1, false) : null;
    return { ...base, kind: 'Match', subject, cases, otherwise, leadingComments };
  }

  // ----- expressions -----

  private textValue(): string {
    return Array.from({ length: this.c.int(0, 5) }, () => pick(this.c, TEXT_PIECES)).join('');
  }

  private literal(type: GenType, scope: Variable[]): Typed {
    switch (type.k) {
      case 'Int':
        return { expr: { ...base, kind: 'IntLiteral', value: chance(this.c, 5) ? 9007199254740991 : this.c.int(0, 1000) }, type };
      case 'Float': {
        // Integral Floats (`12.0`) must stay Floats through formatting.
        const value = chance(this.c, 20) ? this.c.int(0, 50) : this.c.int(0, 100000) / 100;
        return { expr: { ...base, kind: 'FloatLiteral', value }, type };
      }
      case 'Text':
        return { expr: { ...base, kind: 'TextLiteral', value: this.textValue() }, type };
      case 'Bool':
        return { expr: { ...base, kind: 'BoolLiteral', value: chance(this.c, 50) }, type };
      case 'Enum': {
        const info = this.g.enumInfo(type.name);
        const variant = pick(this.c, info.variants);
        const expr: Expr = chance(this.c, 50)
          ? { ...base, kind: 'Name', name: variant }
          : { ...base, kind: 'FieldAccess', object: { ...base, kind: 'Name', name: info.name }, field: variant };
        return { expr, type };
      }
      case 'List':
        return {
          expr: { ...base, kind: 'List', elements: Array.from({ length: this.c.int(1, 2) }, () => this.literal(type.element, scope).expr) },
          type,
        };
      case 'Record': {
        const fields = this.g.record(type.name).fields.map((f) => ({
          ...base,
          kind: 'FieldInit' as const,
          name: f.name,
          value: this.literal(f.type, scope).expr,
        }));
        if (chance(this.c, 30)) fields.reverse();
        return { expr: { ...base, kind: 'Record', typeName: type.name, fields }, type };
      }
    }
  }

  /** Paths `v`, `v.f`, `v.f.g` through record fields that end in a value of type `want`. */
  private paths(want: GenType, scope: Variable[], exact: boolean): Typed[] {
    const out: Typed[] = [];
    const visit = (expr: Expr, type: GenType, hops: number): void => {
      if (exact ? sameType(type, want) : fits(type, want)) out.push({ expr, type });
      if (type.k === 'Record' && hops < 2) {
        for (const f of this.g.record(type.name).fields) {
          visit({ ...base, kind: 'FieldAccess', object: expr, field: f.name }, f.type, hops + 1);
        }
      }
    };
    for (const v of scope) visit({ ...base, kind: 'Name', name: v.name }, v.type, 0);
    return out;
  }

  private call(callee: string, args: Expr[]): Expr {
    return { ...base, kind: 'Call', callee, args };
  }

  private number(scope: Variable[], depth: number): Typed {
    return this.expr(chance(this.c, 50) ? INT : FLOAT, scope, depth, true);
  }

  /**
   * An expression whose type fits `want`. With `widen`, an Int may stand for a Float; without
   * it the expression's type is exactly `want` (list elements, operands of `is`).
   */
  expr(want: GenType, scope: Variable[], depth: number, widen = false): Typed {
    if (widen && want.k === 'Float' && chance(this.c, 20)) return this.expr(INT, scope, depth);
    const leaves: (() => Typed)[] = [() => this.literal(want, scope)];
    const paths = this.paths(want, scope, true);
    if (paths.length > 0) leaves.push(() => pick(this.c, paths), () => pick(this.c, paths));
    if (depth <= 0) return pick(this.c, leaves)();

    const d = depth - 1;
    const compound: (() => Typed)[] = [];
    const rules = this.callable.filter((r) => sameType(r.returnType, want));
    if (rules.length > 0) {
      compound.push(() => {
        const r = pick(this.c, rules);
        return { expr: this.call(r.name, r.params.map((p) => this.expr(p.type, scope, d, true).expr)), type: r.returnType };
      });
    }
    const binary = (op: 'add' | 'sub' | 'mul' | 'div' | 'mod' | 'and' | 'or', left: Expr, right: Expr): Expr => ({ ...base, kind: 'Binary', op, left, right });

    switch (want.k) {
      case 'Int':
        compound.push(
          () => ({ expr: binary(pick(this.c, ['add', 'sub', 'mul', 'mod'] as const), this.expr(INT, scope, d).expr, this.expr(INT, scope, d).expr), type: INT }),
          () => ({ expr: { ...base, kind: 'Unary', op: 'neg', operand: this.expr(INT, scope, d).expr }, type: INT }),
          () => ({ expr: this.call(pick(this.c, ['round', 'floor', 'ceil']), [this.number(scope, d).expr]), type: INT }),
          () => ({ expr: this.call(pick(this.c, ['min', 'max']), Array.from({ length: this.c.int(1, 3) }, () => this.expr(INT, scope, d).expr)), type: INT }),
          () => ({ expr: this.call('abs', [this.expr(INT, scope, d).expr]), type: INT }),
          () => ({ expr: this.call('length', [this.expr(chance(this.c, 50) ? TEXT : listOf(this.g.valueType(1)), scope, d).expr]), type: INT }),
          () => ({ expr: this.call('count', [this.expr(listOf(this.g.valueType(1)), scope, d).expr]), type: INT }),
          () => ({ expr: this.call('sum', [this.expr(listOf(INT), scope, d).expr]), type: INT }),
        );
        break;
      case 'Float':
        compound.push(
          () => ({ expr: binary('div', this.number(scope, d).expr, this.number(scope, d).expr), type: FLOAT }),
          () => {
            const floatSide = this.expr(FLOAT, scope, d).expr;
            const other = this.number(scope, d).expr;
            const op = pick(this.c, ['add', 'sub', 'mul', 'mod'] as const);
            return { expr: chance(this.c, 50) ? binary(op, floatSide, other) : binary(op, other, floatSide), type: FLOAT };
          },
          () => ({ expr: { ...base, kind: 'Unary', op: 'neg', operand: this.expr(FLOAT, scope, d).expr }, type: FLOAT }),
          () => ({ expr: this.call('power', [this.number(scope, d).expr, this.number(scope, d).expr]), type: FLOAT }),
          () => ({ expr: this.call('sqrt', [this.number(scope, d).expr]), type: FLOAT }),
          () => ({ expr: this.call('round', [this.number(scope, d).expr, { ...base, kind: 'IntLiteral', value: this.c.int(0, 4) }]), type: FLOAT }),
          () => ({ expr: this.call('abs', [this.expr(FLOAT, scope, d).expr]), type: FLOAT }),
          () => ({ expr: this.call(pick(this.c, ['min', 'max']), [this.expr(FLOAT, scope, d).expr, this.number(scope, d).expr]), type: FLOAT }),
          () => ({ expr: this.call('sum', [this.expr(listOf(FLOAT), scope, d).expr]), type: FLOAT }),
        );
        break;
      case 'Text':
        compound.push(
          () => ({ expr: binary('add', this.expr(TEXT, scope, d).expr, this.expr(TEXT, scope, d).expr), type: TEXT }),
          () => ({ expr: this.call(pick(this.c, ['lower', 'upper', 'trim']), [this.expr(TEXT, scope, d).expr]), type: TEXT }),
          () => ({ expr: this.call('text', [this.expr(pick(this.c, [INT, FLOAT, TEXT, BOOL]), scope, d).expr]), type: TEXT }),
          () => ({ expr: this.call('join', [this.expr(listOf(TEXT), scope, d).expr, this.expr(TEXT, scope, d).expr]), type: TEXT }),
        );
        break;
      case 'Bool':
        compound.push(
          () => ({ expr: binary(pick(this.c, ['and', 'or'] as const), this.expr(BOOL, scope, d).expr, this.expr(BOOL, scope, d).expr), type: BOOL }),
          () => ({ expr: { ...base, kind: 'Unary', op: 'not', operand: this.expr(BOOL, scope, d).expr }, type: BOOL }),
          () => {
            const t = this.g.valueType(1);
            const op = pick(this.c, ['eq', 'ne'] as const);
            return { expr: { ...base, kind: 'Compare', op, left: this.expr(t, scope, d).expr, right: this.expr(t, scope, d).expr }, type: BOOL };
          },
          () => {
            const op = pick(this.c, ['lt', 'gt', 'ge', 'le'] as const);
            return { expr: { ...base, kind: 'Compare', op, left: this.number(scope, d).expr, right: this.number(scope, d).expr }, type: BOOL };
          },
          () => ({
            expr: { ...base, kind: 'Between', value: this.number(scope, d).expr, low: this.number(scope, d).expr, high: this.number(scope, d).expr },
            type: BOOL,
          }),
          () => {
            const t = this.g.valueType(1);
            return { expr: { ...base, kind: 'Compare', op: 'in', left: this.expr(t, scope, d).expr, right: this.expr(listOf(t), scope, d).expr }, type: BOOL };
          },
          () => {
            if (chance(this.c, 50)) {
              return { expr: { ...base, kind: 'Compare', op: 'contains', left: this.expr(TEXT, scope, d).expr, right: this.expr(TEXT, scope, d).expr }, type: BOOL };
            }
            const t = this.g.valueType(1);
            return { expr: { ...base, kind: 'Compare', op: 'contains', left: this.expr(listOf(t), scope, d).expr, right: this.expr(t, scope, d).expr }, type: BOOL };
          },
          () => ({ expr: this.call(pick(this.c, ['startsWith', 'endsWith']), [this.expr(TEXT, scope, d).expr, this.expr(TEXT, scope, d).expr]), type: BOOL }),
        );
        break;
      case 'List':
        compound.push(
          () => ({
            expr: { ...base, kind: 'List', elements: Array.from({ length: this.c.int(1, 3) }, () => this.expr(want.element, scope, d).expr) },
            type: want,
          }),
          () => ({ expr: this.call('append', [this.expr(want, scope, d).expr, this.expr(want.element, scope, d).expr]), type: want }),
        );
        break;
      case 'Record':
      case 'Enum':
        break;
    }
    const all = [...leaves, ...compound];
    return pick(this.c, all)();
  }
}

/** Whether control never continues past this statement (it returns or fails on every path). */
function alwaysEnds(statement: Statement, g: ModuleGenerator): boolean {
  const blockEnds = (body: Statement[]): boolean => body.length > 0 && alwaysEnds(body[body.length - 1]!, g);
  switch (statement.kind) {
    case 'Return':
    case 'Fail':
      return true;
    case 'If':
      return statement.otherwise !== null && blockEnds(statement.otherwise) && statement.branches.every((b) => blockEnds(b.body));
    case 'Match': {
      if (!statement.cases.every((c) => blockEnds(c.body))) return false;
      if (statement.otherwise !== null) return blockEnds(statement.otherwise);
      const named = new Set(statement.cases.flatMap((c) => c.patterns.map((p) => (p.kind === 'VariantPattern' ? p.variant : null))));
      return g.enums.some((e) => e.variants.every((v) => named.has(v)) && statement.cases.every((c) => c.patterns.every((p) => p.kind === 'VariantPattern')));
    }
    default:
      return false;
  }
}

export function generateModule(c: Chooser, limits: GeneratorLimits = DEFAULT_LIMITS): GeneratedModule {
  const g = new ModuleGenerator(c, limits);
  const module = g.module();
  return {
    module,
    rules: g.rules,
    context: (chooser, rule) => {
      const out: Record<string, JsonValue> = {};
      for (const p of rule.params) out[p.name] = g.value(chooser, p.type);
      return out;
    },
  };
}

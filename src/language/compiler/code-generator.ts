/**
 * The hot tier: a checked module's rules as JavaScript functions, for entry points evaluated often
 * (compile-program.ts decides when). A closure tree pays for a call per node and keeps every
 * variable in a heap frame; a generated function keeps variables in registers and lets the
 * engine compile a rule like hand-written code.
 *
 * The generated source never contains policy text. Identifiers are synthetic (`r2` a rule, `v3`
 * a variable slot, `t0` a temporary, `l1`/`i1` a loop's list and index); every Text, name and
 * span is an index into a constant pool (`k[…]`, `s[…]`); numbers are printed from the checked
 * double values. `assertGeneratedSource` verifies exactly that before anything is compiled.
 * Semantics — evaluation order, checks, step counting, error spans — are those of the closure
 * compiler; a test runs the conformance corpus on both.
 */
import type { Expr, MatchStmt, Span, Statement } from '../ast/nodes.js';
import { BUILTINS, type BuiltinName } from '../builtins/index.js';
import type { CheckedModule, RuleInfo } from '../checker/checked-module.js';
import type { ValueType } from '../checker/types.js';
import { createEquality, isScalar, type Equality } from '../runtime/equality.js';
import { fixedShape, largestJsonSize, MAX_CHARACTER_BYTES } from '../runtime/json-size.js';
import type { Meter } from '../runtime/meter.js';
import { createResultCheck } from '../runtime/result-conversion.js';
import { DEFAULT_MAX_RESULT_BYTES } from '../runtime/value-limits.js';
import { ConversionGenerator } from './conversion-generator.js';
import { GENERATED_HELPER_NAMES, type GeneratedHelpers } from './generated-helpers.js';

export interface GeneratedRules {
  /** Body of `new Function('k', 's', 'h', 'm', source)`: returns one entry function per name. */
  readonly source: string;
  readonly constants: readonly unknown[];
  readonly spans: readonly Span[];
  /** Rules in the order of the returned entry functions; each takes its arguments as an array. */
  readonly names: readonly string[];
  /** The rule whose context-to-JSON entry function (conversion-generator.ts) comes last, if any. */
  readonly entry: string | null;
}

export type GeneratedEntry = (args: unknown[]) => unknown;

/** Context in, JSON result out, or the INVALID sentinel when the context is not valid. */
export type GeneratedConvertingEntry = (context: unknown) => unknown;

export interface InstantiatedRules {
  readonly rules: Map<string, GeneratedEntry>;
  readonly entry: GeneratedConvertingEntry | null;
}

const KEYWORDS = ['function', 'let', 'const', 'if', 'else', 'return', 'switch', 'case', 'default', 'break', 'for', 'true', 'false'];
const ALLOWED_WORDS = new Set([...KEYWORDS, ...GENERATED_HELPER_NAMES, 'k', 's', 'h', 'm', 'left', 'length', 'includes', 'push']);
const STRICT = "'use strict';\n";

/**
 * Throws unless the source consists only of the generator's own vocabulary: no quotes beyond the
 * strict-mode directive, no escapes, no identifier outside the allowed words and synthetic names.
 */
export function assertGeneratedSource(source: string): void {
  if (!source.startsWith(STRICT)) throw new Error('generated code lacks its strict-mode directive');
  const rest = source.slice(STRICT.length);
  if (/[^\x20-\x7e\n]|['"`\\]/.test(rest)) throw new Error('generated code contains a character it must not');
  const withoutNumbers = rest.replace(/\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/g, '0');
  for (const word of withoutNumbers.match(/[A-Za-z_$][\w$]*/g) ?? []) {
    if (!ALLOWED_WORDS.has(word) && !/^[rvtlicoexp]\d+$/.test(word)) throw new Error(`generated code contains the word \`${word}\``);
  }
}

/** A finite number as a literal; negative numbers in parentheses. */
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new Error('non-finite number literal');
  const text = String(value + 0);
  return value < 0 ? `(${text})` : text;
}

class ModuleGenerator {
  readonly constants: unknown[] = [];
  readonly spans: Span[] = [];
  private readonly constantIndex = new Map<unknown, number>();
  private readonly spanIndex = new Map<Span, number>();
  readonly ruleIndex = new Map<string, number>();

  constructor(readonly checked: CheckedModule) {}

  constant(value: unknown): string {
    let index = this.constantIndex.get(value);
    if (index === undefined) {
      index = this.constants.length;
      this.constants.push(value);
      this.constantIndex.set(value, index);
    }
    return `k[${index}]`;
  }

  span(span: Span): string {
    let index = this.spanIndex.get(span);
    if (index === undefined) {
      index = this.spans.length;
      this.spans.push(span);
      this.spanIndex.set(span, index);
    }
    return `s[${index}]`;
  }
}

class RuleGenerator {
  private temps = 0;
  private loops = 0;
  private readonly lines: string[] = [];

  /** Field locals `p…` of the record parameters this copy takes field by field. */
  private readonly fieldLocals = new Map<number, string[]>();

  /**
   * `returned` wraps every returned value: the entry's own copy returns JSON (see generateRules).
   * `exploded` record parameters arrive as one argument per field; generating throws
   * NotExplodableError when the rule uses such a parameter other than by reading a field.
   */
  constructor(
    private readonly module: ModuleGenerator,
    private readonly rule: RuleInfo,
    private readonly returned: (value: string, temp: () => string) => string = (value) => value,
    exploded: ReadonlySet<number> = new Set(),
  ) {
    let next = 0;
    for (const slot of exploded) {
      const type = rule.params[slot]!.type;
      if (type.kind !== 'Record') throw new Error('only a record parameter can be taken field by field');
      this.fieldLocals.set(slot, module.checked.records.get(type.name)!.fields.map(() => `p${next++}`));
    }
  }

  private get checked(): CheckedModule {
    return this.module.checked;
  }

  private typeOf(expr: Expr): ValueType {
    const type = this.checked.types.get(expr.id);
    if (type === undefined) throw new Error(`no type recorded for expression ${expr.id}`);
    return type;
  }

  private resolution(id: number) {
    const resolution = this.checked.resolutions.get(id);
    if (resolution === undefined) throw new Error(`no resolution recorded for node ${id}`);
    return resolution;
  }

  private temp(): string {
    return `t${this.temps++}`;
  }

  private tick(span: Span): string {
    return `if (--m.left < 0) budget(${this.module.span(span)});`;
  }

  generate(index: number): string {
    this.block(this.rule.decl.body);
    const params = this.rule.params.map((_, i) => this.fieldLocals.get(i)?.join(', ') ?? `v${i}`).join(', ');
    const locals: string[] = [];
    for (let i = this.rule.params.length; i < this.rule.slotCount; i++) locals.push(`v${i}`);
    for (let i = 0; i < this.temps; i++) locals.push(`t${i}`);
    const declare = locals.length > 0 ? `let ${locals.join(', ')};\n` : '';
    return `function r${index}(${params}) {\n${declare}${this.lines.join('\n')}\n}`;
  }

  // ---------- statements ----------

  /**
   * Steps are taken in batches: a run of consecutive `Let`s without rule calls, plus the
   * statement that ends the run, checks the budget once. When the budget cannot cover the whole
   * run, the same statements run with one check each, so an exhausted budget stops at exactly the
   * statement it would stop at without batching, and a runtime error before it still comes first.
   * Only the call-free `Let`s are emitted twice.
   */
  private block(statements: readonly Statement[]): void {
    let i = 0;
    while (i < statements.length) {
      let last = i;
      while (last < statements.length - 1 && this.isCallFreeLet(statements[last]!)) last++;
      if (last === i) {
        this.statement(statements[i]!, true);
      } else {
        const lets = statements.slice(i, last);
        const end = statements[last]!;
        this.lines.push(`if (m.left >= ${lets.length + 1}) {`, `m.left -= ${lets.length + 1};`);
        for (const statement of lets) this.statement(statement, false);
        this.lines.push('} else {');
        for (const statement of lets) this.statement(statement, true);
        this.lines.push(this.tick(end.span), '}');
        this.statement(end, false);
      }
      i = last + 1;
    }
  }

  private isCallFreeLet(statement: Statement): boolean {
    return statement.kind === 'Let' && !this.callsRule(statement.value);
  }

  /** Whether evaluating the expression may call a rule (and so take steps of its own). */
  private callsRule(expr: Expr): boolean {
    switch (expr.kind) {
      case 'Call':
        return this.resolution(expr.id).kind === 'rule' || expr.args.some((a) => this.callsRule(a));
      case 'List':
        return expr.elements.some((e) => this.callsRule(e));
      case 'Record':
        return expr.fields.some((f) => this.callsRule(f.value));
      case 'FieldAccess':
        return this.callsRule(expr.object);
      case 'Unary':
        return this.callsRule(expr.operand);
      case 'Binary':
      case 'Compare':
        return this.callsRule(expr.left) || this.callsRule(expr.right);
      case 'Between':
        return this.callsRule(expr.value) || this.callsRule(expr.low) || this.callsRule(expr.high);
      default:
        return false;
    }
  }

  private slotOf(id: number): number {
    const resolution = this.resolution(id);
    if (resolution.kind !== 'slot') throw new Error('binding without a slot');
    if (this.fieldLocals.has(resolution.slot)) throw new NotExplodableError(resolution.slot);
    return resolution.slot;
  }

  private statement(statement: Statement, withTick: boolean): void {
    const out = this.lines;
    const tick = withTick ? [this.tick(statement.span)] : [];
    switch (statement.kind) {
      case 'Let':
        out.push(...tick, `v${this.slotOf(statement.id)} = ${this.expr(statement.value)};`);
        return;
      case 'Return':
        out.push(...tick, `return ${this.returned(this.expr(statement.value), () => this.temp())};`);
        return;
      case 'Fail':
        out.push(...tick, `fail(${this.expr(statement.message)}, ${this.module.span(statement.span)});`);
        return;
      case 'If':
        out.push(...tick);
        statement.branches.forEach((branch, i) => {
          out.push(`${i === 0 ? 'if' : '} else if'} (${this.expr(branch.condition)}) {`);
          this.block(branch.body);
        });
        if (statement.otherwise) {
          out.push('} else {');
          this.block(statement.otherwise);
        }
        out.push('}');
        return;
      case 'Match':
        out.push(...tick);
        this.match(statement);
        return;
      case 'ForEach': {
        const n = this.loops++;
        out.push(
          ...tick,
          `{ const l${n} = ${this.expr(statement.iterable)};`,
          `for (let i${n} = 0; i${n} < l${n}.length; i${n}++) {`,
          this.tick(statement.span),
          `v${this.slotOf(statement.id)} = l${n}[i${n}];`,
        );
        this.block(statement.body);
        out.push('} }');
        return;
      }
    }
  }

  private match(statement: MatchStmt): void {
    const out = this.lines;
    out.push(`switch (${this.expr(statement.subject)}) {`);
    for (const matchCase of statement.cases) {
      for (const pattern of matchCase.patterns) {
        if (pattern.kind === 'VariantPattern') {
          const resolution = this.resolution(pattern.id);
          if (resolution.kind !== 'variant') throw new Error('variant pattern without index');
          out.push(`case ${resolution.index}:`);
        } else if (pattern.kind === 'IntPattern') {
          out.push(`case ${numberLiteral(pattern.value)}:`);
        } else {
          out.push(`case ${this.module.constant(pattern.value)}:`);
        }
      }
      out.push('{');
      this.block(matchCase.body);
      out.push('} break;');
    }
    if (statement.otherwise) {
      out.push('default: {');
      this.block(statement.otherwise);
      out.push('}');
    }
    out.push('}');
  }

  // ---------- expressions ----------

  private expr(expr: Expr): string {
    switch (expr.kind) {
      case 'IntLiteral':
      case 'FloatLiteral':
        return numberLiteral(expr.value);
      case 'TextLiteral':
        return this.module.constant(expr.value);
      case 'BoolLiteral':
        return expr.value ? 'true' : 'false';
      case 'Name': {
        const resolution = this.resolution(expr.id);
        if (resolution.kind === 'slot') {
          if (this.fieldLocals.has(resolution.slot)) throw new NotExplodableError(resolution.slot);
          return `v${resolution.slot}`;
        }
        if (resolution.kind === 'variant') return String(resolution.index);
        throw new Error(`name resolved to ${resolution.kind}`);
      }
      case 'List':
        return `[${expr.elements.map((e) => this.expr(e)).join(', ')}]`;
      case 'Record': {
        const parts = expr.fields.map((field) => {
          const resolution = this.resolution(field.id);
          if (resolution.kind !== 'field') throw new Error('record field without position');
          return { index: resolution.index, value: this.expr(field.value) };
        });
        if (parts.every((p, i) => p.index === i)) return `[${parts.map((p) => p.value).join(', ')}]`;
        // Evaluated in the order written, stored in declaration order.
        const temps = parts.map(() => this.temp());
        const byIndex = parts.map((p, i) => ({ index: p.index, temp: temps[i]! })).sort((a, b) => a.index - b.index);
        return `(${parts.map((p, i) => `${temps[i]} = ${p.value}`).join(', ')}, [${byIndex.map((p) => p.temp).join(', ')}])`;
      }
      case 'FieldAccess': {
        const resolution = this.resolution(expr.id);
        if (resolution.kind === 'variant') return String(resolution.index);
        if (resolution.kind !== 'field') throw new Error(`field access resolved to ${resolution.kind}`);
        if (expr.object.kind === 'Name') {
          const object = this.resolution(expr.object.id);
          const fields = object.kind === 'slot' ? this.fieldLocals.get(object.slot) : undefined;
          if (fields !== undefined) return fields[resolution.index]!;
        }
        return `${this.expr(expr.object)}[${resolution.index}]`;
      }
      case 'Call': {
        const resolution = this.resolution(expr.id);
        const args = expr.args.map((a) => this.expr(a));
        if (resolution.kind === 'builtin') return this.builtin(expr.args, args, resolution.name, expr.span);
        if (resolution.kind !== 'rule') throw new Error(`call resolved to ${resolution.kind}`);
        const callee = this.module.ruleIndex.get(resolution.name);
        if (callee === undefined) throw new Error(`rule \`${resolution.name}\` generated after its caller`);
        // Arguments first, then the step, then the call, as in the closure compiler.
        const temps = args.map(() => this.temp());
        const assigned = args.map((a, i) => `${temps[i]} = ${a}, `).join('');
        return `(${assigned}(--m.left < 0 && budget(${this.module.span(expr.span)})), r${callee}(${temps.join(', ')}))`;
      }
      case 'Unary':
        return expr.op === 'not' ? `(!${this.expr(expr.operand)})` : `(0 - ${this.expr(expr.operand)})`;
      case 'Binary': {
        const a = this.expr(expr.left);
        const b = this.expr(expr.right);
        const span = this.module.span(expr.span);
        switch (expr.op) {
          case 'and':
            return `(${a} && ${b})`;
          case 'or':
            return `(${a} || ${b})`;
          case 'div':
            return `div(${a}, ${b}, ${span})`;
          case 'mod':
            return `mod(${a}, ${b}, ${span})`;
          default: {
            const type = this.typeOf(expr).kind;
            if (type === 'Text') return `concat(${a}, ${b}, ${span})`;
            const suffix = type === 'Int' ? 'I' : 'F';
            return `${expr.op}${suffix}(${a}, ${b}, ${span})`;
          }
        }
      }
      case 'Compare':
        return this.compare(expr);
      case 'Between':
        return `between(${this.expr(expr.value)}, ${this.expr(expr.low)}, ${this.expr(expr.high)})`;
    }
  }

  private compare(expr: Extract<Expr, { kind: 'Compare' }>): string {
    const a = this.expr(expr.left);
    const b = this.expr(expr.right);
    const records = this.checked.records;
    switch (expr.op) {
      case 'lt':
        return `(${a} < ${b})`;
      case 'gt':
        return `(${a} > ${b})`;
      case 'le':
        return `(${a} <= ${b})`;
      case 'ge':
        return `(${a} >= ${b})`;
      case 'eq':
      case 'ne': {
        const type = this.typeOf(expr.left);
        if (isScalar(type)) return expr.op === 'eq' ? `(${a} === ${b})` : `(${a} !== ${b})`;
        const equals = this.module.constant(createEquality(type, records));
        return expr.op === 'eq' ? `${equals}(${a}, ${b})` : `(!${equals}(${a}, ${b}))`;
      }
      case 'in': {
        const listType = this.typeOf(expr.right);
        const element = listType.kind === 'List' ? listType.element : this.typeOf(expr.left);
        if (isScalar(element)) return `inList(${a}, ${b})`;
        return `${this.module.constant(memberOf(createEquality(element, records)))}(${a}, ${b})`;
      }
      case 'contains': {
        const leftType = this.typeOf(expr.left);
        if (leftType.kind === 'Text') return `textHas(${a}, ${b})`;
        const element = leftType.kind === 'List' ? leftType.element : this.typeOf(expr.right);
        if (isScalar(element)) return `listHas(${a}, ${b})`;
        return `${this.module.constant(listContains(createEquality(element, records)))}(${a}, ${b})`;
      }
    }
  }

  private builtin(nodes: readonly Expr[], args: string[], name: BuiltinName, at: Span): string {
    return BUILTINS[name].generated({
      args,
      argTypes: nodes.map((node) => this.typeOf(node)),
      span: this.module.span(at),
      constant: (value) => this.module.constant(value),
      enums: this.checked.enums,
    });
  }
}

/** A parameter to be taken field by field is used as a whole. */
class NotExplodableError extends Error {
  constructor(readonly slot: number) {
    super(`parameter ${slot} is used as a whole`);
  }
}

function memberOf(equals: Equality): (item: unknown, list: unknown[]) => boolean {
  return (item, list) => {
    for (let i = 0; i < list.length; i++) if (equals(list[i], item)) return true;
    return false;
  };
}

function listContains(equals: Equality): (list: unknown[], item: unknown) => boolean {
  return (list, item) => {
    for (let i = 0; i < list.length; i++) if (equals(list[i], item)) return true;
    return false;
  };
}

/**
 * Most fields the entry copy takes as separate arguments. Beyond it a record parameter arrives
 * whole: a function with tens of thousands of parameters is slow to compile, overflows the stack
 * when called and, past 65,535, is not even valid JavaScript.
 */
const MAX_EXPLODED_FIELDS = 64;

/**
 * The record parameters the entry copy may take field by field (no record array is made for
 * them), in parameter order while their fields fit MAX_EXPLODED_FIELDS. Generating drops those
 * the rule uses other than by reading a field.
 */
function explodableParameters(checked: CheckedModule, rule: RuleInfo): Set<number> {
  const exploded = new Set<number>();
  let fields = 0;
  rule.params.forEach((param, slot) => {
    if (param.type.kind !== 'Record') return;
    const count = checked.records.get(param.type.name)!.fields.length;
    if (fields + count > MAX_EXPLODED_FIELDS) return;
    fields += count;
    exploded.add(slot);
  });
  return exploded;
}

/**
 * The entry copy's conversion of a returned value to JSON, within the default maxResultBytes (the
 * fast path runs with the default limits, see evaluate.ts) as result-conversion.ts checks it. A
 * type whose values always fit needs no check. A type without lists is checked inline from its
 * Texts' lengths, so the record array stays local to the function and the engine need not build
 * it; only a value that might not fit is measured exactly.
 */
function resultToJson(module: ModuleGenerator, conversions: ConversionGenerator, type: ValueType): (value: string, temp: () => string) => string {
  const env = { records: module.checked.records, enums: module.checked.enums };
  const limit = DEFAULT_MAX_RESULT_BYTES;
  if (largestJsonSize(type, env) <= limit) return (value) => conversions.output(type, value);
  const check = module.constant(createResultCheck(type, env));
  const shape = fixedShape(type, env);
  if (shape === null) return (value) => conversions.output(type, `${check}(${value}, ${limit})`);
  return (value, temp) => {
    const t = temp();
    const lengths = shape.texts.map((path) => `${t}${path.map((i) => `[${i}]`).join('')}.length`).join(' + ');
    const mayNotFit = `${shape.fixed} + ${MAX_CHARACTER_BYTES} * (${lengths}) > ${limit}`;
    return `(${t} = ${value}, ${mayNotFit} && ${check}(${t}, ${limit}), ${conversions.output(type, t)})`;
  };
}

/**
 * Generates the given rules, which must be closed under calls and listed callees first, and for
 * `entry` (one of them) also the function that converts its context and result.
 */
export function generateRules(checked: CheckedModule, ruleNames: readonly string[], entry: string | null = null): GeneratedRules {
  const module = new ModuleGenerator(checked);
  const functions: string[] = [];
  ruleNames.forEach((name, index) => {
    module.ruleIndex.set(name, index);
    functions.push(new RuleGenerator(module, checked.rules.get(name)!).generate(index));
  });
  const entries = ruleNames.map((name, index) => {
    const count = checked.rules.get(name)!.params.length;
    const args = Array.from({ length: count }, (_, i) => `l0[${i}]`).join(', ');
    return `(l0) => r${index}(${args})`;
  });
  if (entry !== null) {
    // The entry rule once more, converting what it returns to JSON where it returns it: the
    // engine then builds the result object without the intermediate record array.
    const rule = checked.rules.get(entry)!;
    const conversions = new ConversionGenerator(module, checked);
    const copy = ruleNames.length;
    const exploded = explodableParameters(checked, rule);
    const toJson = resultToJson(module, conversions, rule.returnType);
    let code: string | null = null;
    while (code === null) {
      try {
        code = new RuleGenerator(module, rule, toJson, exploded).generate(copy);
      } catch (error) {
        if (!(error instanceof NotExplodableError)) throw error;
        exploded.delete(error.slot);
      }
    }
    functions.push(code, conversions.entry(0, copy, rule.params, exploded), conversions.declarations());
    entries.push('e0');
  }
  const source = `${STRICT}const { ${GENERATED_HELPER_NAMES.join(', ')} } = h;\n${functions.join('\n')}\nreturn [${entries.join(', ')}];\n`;
  assertGeneratedSource(source);
  return { source, constants: module.constants, spans: module.spans, names: ruleNames, entry };
}

/** Compiles generated rules; the source has passed `assertGeneratedSource`. */
export function instantiateRules(generated: GeneratedRules, helpers: GeneratedHelpers, meter: Meter): InstantiatedRules {
  assertGeneratedSource(generated.source);
  const factory = new Function('k', 's', 'h', 'm', generated.source) as (k: unknown, s: unknown, h: unknown, m: unknown) => unknown[];
  const entries = factory(generated.constants, generated.spans, helpers, meter);
  return {
    rules: new Map(generated.names.map((name, i) => [name, entries[i] as GeneratedEntry])),
    entry: generated.entry === null ? null : (entries[generated.names.length] as GeneratedConvertingEntry),
  };
}

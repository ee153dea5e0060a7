/**
 * Expressions → closures. Every decision that can be made from the static type or the shape of
 * the operands is made here, once, so that the closures themselves do only the arithmetic:
 * variables are frame slots, record fields array positions, enum values integers.
 *
 * Closures that call other closures are built by small module-level factories: a closure then
 * captures only the factory's parameters, not the compiler's whole scope (context, tree), which
 * keeps cached programs small.
 */
import type {
  BetweenExpr,
  BinaryExpr,
  CallExpr,
  CompareExpr,
  Expr,
  FieldAccessExpr,
  ListExpr,
  RecordExpr,
  Span,
  UnaryExpr,
} from '../ast/nodes.js';
import type { TraceEntry } from '../api-types.js';
import { BUILTINS } from '../builtins/index.js';
import { createEquality, isScalar, type Equality } from '../runtime/equality.js';
import { budgetExceeded, type Meter } from '../runtime/meter.js';
import { checkTextLength, divisionByZero, floorMod, moduloByZero, notFinite } from '../runtime/numeric.js';
import type { Eval, Exec } from '../runtime/program-runtime.js';
import { resolutionOf, typeOf, type CompileContext } from './compile-context.js';
import { arithmeticClosure, compareClosure } from './fused-operators.js';
import type { Operand } from './operand.js';

type Exceeded = typeof budgetExceeded;

// ---------- closure factories ----------

const list1 = (a: Eval): Eval => () => [a()];
const list2 = (a: Eval, b: Eval): Eval => () => [a(), b()];
const list3 = (a: Eval, b: Eval, c: Eval): Eval => () => [a(), b(), c()];
const listMany =
  (items: Eval[]): Eval =>
  () => {
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i++) out.push(items[i]!());
    return out;
  };

const record4 = (a: Eval, b: Eval, c: Eval, d: Eval): Eval => () => [a(), b(), c(), d()];
const record5 = (a: Eval, b: Eval, c: Eval, d: Eval, e: Eval): Eval => () => [a(), b(), c(), d(), e()];
const record6 = (a: Eval, b: Eval, c: Eval, d: Eval, e: Eval, f: Eval): Eval => () => [a(), b(), c(), d(), e(), f()];
/** Fields evaluated in the order written, stored in declaration order. */
const recordAnyOrder =
  (size: number, indexes: number[], values: Eval[]): Eval =>
  () => {
    const out = new Array<unknown>(size);
    for (let i = 0; i < values.length; i++) out[indexes[i]!] = values[i]!();
    return out;
  };

const fieldOf =
  (object: Eval, index: number): Eval =>
  () =>
    (object() as unknown[])[index];

const call0 =
  (meter: Meter, span: Span, exceeded: Exceeded, body: Exec): Eval =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return body();
  };

// Arguments are all evaluated before any is stored: an argument may call the same rule.
const call1 =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], body: Exec, a: Eval): Eval =>
  () => {
    const x = a();
    if (--meter.left < 0) throw exceeded(meter, span);
    frame[0] = x;
    return body();
  };

const call2 =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], body: Exec, a: Eval, b: Eval): Eval =>
  () => {
    const x = a();
    const y = b();
    if (--meter.left < 0) throw exceeded(meter, span);
    frame[0] = x;
    frame[1] = y;
    return body();
  };

const call3 =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], body: Exec, a: Eval, b: Eval, c: Eval): Eval =>
  () => {
    const x = a();
    const y = b();
    const z = c();
    if (--meter.left < 0) throw exceeded(meter, span);
    frame[0] = x;
    frame[1] = y;
    frame[2] = z;
    return body();
  };

const callMany =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], body: Exec, args: Eval[]): Eval =>
  () => {
    const values: unknown[] = [];
    for (let i = 0; i < args.length; i++) values.push(args[i]!());
    if (--meter.left < 0) throw exceeded(meter, span);
    for (let i = 0; i < values.length; i++) frame[i] = values[i];
    return body();
  };

const not = (a: Eval): Eval => () => !a();
// 0 - x rather than -x: no negative zero.
const negate = (a: Eval): Eval => () => 0 - (a() as number);
const and = (a: Eval, b: Eval): Eval => () => (a() as boolean) && (b() as boolean);
const or = (a: Eval, b: Eval): Eval => () => (a() as boolean) || (b() as boolean);

const concat =
  (a: Eval, b: Eval, span: Span, check: typeof checkTextLength): Eval =>
  () =>
    check((a() as string) + (b() as string), span);

const divide =
  (a: Eval, b: Eval, span: Span, byZero: typeof divisionByZero, infinite: typeof notFinite): Eval =>
  () => {
    const x = a() as number;
    const y = b() as number;
    if (y === 0) throw byZero(span);
    const r = x / y;
    if (r - r !== 0) throw infinite(span);
    return r;
  };

const modulo =
  (a: Eval, b: Eval, span: Span, byZero: typeof moduloByZero, mod: typeof floorMod): Eval =>
  () => {
    const x = a() as number;
    const y = b() as number;
    if (y === 0) throw byZero(span);
    return mod(x, y);
  };

const structurallyEqual = (a: Eval, b: Eval, equals: Equality): Eval => () => equals(a(), b());
const structurallyDifferent = (a: Eval, b: Eval, equals: Equality): Eval => () => !equals(a(), b());

const textContains =
  (a: Eval, b: Eval): Eval =>
  () => {
    const text = a() as string;
    return text.includes(b() as string);
  };

const inConstants = (item: Eval, constants: unknown[]): Eval => () => constants.includes(item());

const itemInList =
  (item: Eval, list: Eval): Eval =>
  () => {
    const x = item();
    return (list() as unknown[]).includes(x);
  };

const listHasItem =
  (list: Eval, item: Eval): Eval =>
  () => {
    const items = list() as unknown[];
    return items.includes(item());
  };

const memberOf =
  (item: Eval, list: Eval, itemFirst: boolean, equals: Equality): Eval =>
  () => {
    let x: unknown;
    let items: unknown[];
    if (itemFirst) {
      x = item();
      items = list() as unknown[];
    } else {
      items = list() as unknown[];
      x = item();
    }
    for (let i = 0; i < items.length; i++) if (equals(items[i], x)) return true;
    return false;
  };

const betweenConstants =
  (value: Eval, low: number, high: number): Eval =>
  () => {
    const v = value() as number;
    return v >= low && v <= high;
  };

const between =
  (value: Eval, lo: Eval, hi: Eval): Eval =>
  () => {
    const v = value() as number;
    const l = lo() as number;
    const h = hi() as number;
    return v >= l && v <= h;
  };

// ---------- compilation ----------

/** A literal's value, or undefined when the expression is not a literal. */
export function literalValue(expr: Expr): unknown {
  switch (expr.kind) {
    case 'IntLiteral':
    case 'FloatLiteral':
    case 'TextLiteral':
    case 'BoolLiteral':
      return expr.value;
    default:
      return undefined;
  }
}

/** The frame slot an expression reads, or -1 when it is not a plain variable. */
export function slotOf(ctx: CompileContext, expr: Expr): number {
  if (expr.kind !== 'Name') return -1;
  const resolution = resolutionOf(ctx, expr.id);
  return resolution.kind === 'slot' ? resolution.slot : -1;
}

/** The expression as an operand: fused when it is a constant, a variable or a variable's field. */
export function operandOf(ctx: CompileContext, expr: Expr): Operand {
  const literal = literalValue(expr);
  if (literal !== undefined) return { kind: 'const', value: literal };
  if (expr.kind === 'Name') {
    const resolution = resolutionOf(ctx, expr.id);
    if (resolution.kind === 'slot') return { kind: 'slot', frame: ctx.frame, slot: resolution.slot };
    if (resolution.kind === 'variant') return { kind: 'const', value: resolution.index };
  }
  if (expr.kind === 'FieldAccess') {
    const resolution = resolutionOf(ctx, expr.id);
    if (resolution.kind === 'variant') return { kind: 'const', value: resolution.index };
    const slot = slotOf(ctx, expr.object);
    if (resolution.kind === 'field' && slot >= 0) return { kind: 'field', frame: ctx.frame, slot, index: resolution.index };
  }
  return { kind: 'eval', eval: compileExpr(ctx, expr) };
}

export function compileExpr(ctx: CompileContext, expr: Expr): Eval {
  switch (expr.kind) {
    case 'IntLiteral':
    case 'FloatLiteral':
    case 'TextLiteral':
    case 'BoolLiteral': {
      const value = expr.value;
      return () => value;
    }
    case 'Name': {
      const resolution = resolutionOf(ctx, expr.id);
      if (resolution.kind === 'slot') {
        const frame = ctx.frame;
        const slot = resolution.slot;
        return () => frame[slot];
      }
      if (resolution.kind === 'variant') {
        const index = resolution.index;
        return () => index;
      }
      throw new Error(`name resolved to ${resolution.kind}`);
    }
    case 'List':
      return compileList(ctx, expr);
    case 'Record':
      return compileRecord(ctx, expr);
    case 'FieldAccess':
      return compileFieldAccess(ctx, expr);
    case 'Call':
      return compileCall(ctx, expr);
    case 'Unary':
      return compileUnary(ctx, expr);
    case 'Binary':
      return compileBinary(ctx, expr);
    case 'Compare':
      return compileCompare(ctx, expr);
    case 'Between':
      return compileBetween(ctx, expr);
  }
}

function compileList(ctx: CompileContext, expr: ListExpr): Eval {
  const items = expr.elements.map((e) => compileExpr(ctx, e));
  switch (items.length) {
    case 0:
      return () => [];
    case 1:
      return list1(items[0]!);
    case 2:
      return list2(items[0]!, items[1]!);
    case 3:
      return list3(items[0]!, items[1]!, items[2]!);
    default:
      return listMany(items);
  }
}

function compileRecord(ctx: CompileContext, expr: RecordExpr): Eval {
  const size = ctx.env.records.get(expr.typeName)!.fields.length;
  const parts = expr.fields.map((field) => {
    const resolution = resolutionOf(ctx, field.id);
    if (resolution.kind !== 'field') throw new Error('record field without position');
    return { index: resolution.index, value: compileExpr(ctx, field.value) };
  });
  const v = parts.map((p) => p.value);
  if (parts.every((part, i) => part.index === i)) {
    switch (size) {
      case 1:
        return list1(v[0]!);
      case 2:
        return list2(v[0]!, v[1]!);
      case 3:
        return list3(v[0]!, v[1]!, v[2]!);
      case 4:
        return record4(v[0]!, v[1]!, v[2]!, v[3]!);
      case 5:
        return record5(v[0]!, v[1]!, v[2]!, v[3]!, v[4]!);
      case 6:
        return record6(v[0]!, v[1]!, v[2]!, v[3]!, v[4]!, v[5]!);
      default:
        return listMany(v);
    }
  }
  return recordAnyOrder(
    size,
    parts.map((p) => p.index),
    v,
  );
}

function compileFieldAccess(ctx: CompileContext, expr: FieldAccessExpr): Eval {
  const resolution = resolutionOf(ctx, expr.id);
  if (resolution.kind === 'variant') {
    const index = resolution.index;
    return () => index;
  }
  if (resolution.kind !== 'field') throw new Error(`field access resolved to ${resolution.kind}`);
  const index = resolution.index;
  const slot = slotOf(ctx, expr.object);
  if (slot >= 0) {
    const frame = ctx.frame;
    return () => (frame[slot] as unknown[])[index];
  }
  return fieldOf(compileExpr(ctx, expr.object), index);
}

function compileCall(ctx: CompileContext, expr: CallExpr): Eval {
  const resolution = resolutionOf(ctx, expr.id);
  const args = expr.args.map((arg) => compileExpr(ctx, arg));
  if (resolution.kind === 'builtin') {
    const argTypes = expr.args.map((arg) => typeOf(ctx, arg));
    return BUILTINS[resolution.name].closure({ args, argTypes, span: expr.span, enums: ctx.env.enums });
  }
  if (resolution.kind !== 'rule') throw new Error(`call resolved to ${resolution.kind}`);
  const callee = ctx.compiled.get(resolution.name);
  if (callee === undefined) throw new Error(`rule \`${resolution.name}\` compiled after its caller`);
  const { frame, body } = callee;
  const { meter } = ctx;
  const span = expr.span;

  if (ctx.trace) {
    const sink = ctx.trace.sink;
    const rule = ctx.rule.name;
    const text = ctx.trace.textOf(expr);
    const toJson = ctx.trace.toJson(typeOf(ctx, expr));
    return () => {
      const values = args.map((arg) => arg());
      if (--meter.left < 0) throw budgetExceeded(meter, span);
      const entry: TraceEntry = { kind: 'call', rule, text, span, value: null };
      sink.push(entry);
      for (let i = 0; i < values.length; i++) frame[i] = values[i];
      const result = body();
      entry.value = toJson(result);
      return result;
    };
  }
  switch (args.length) {
    case 0:
      return call0(meter, span, budgetExceeded, body);
    case 1:
      return call1(meter, span, budgetExceeded, frame, body, args[0]!);
    case 2:
      return call2(meter, span, budgetExceeded, frame, body, args[0]!, args[1]!);
    case 3:
      return call3(meter, span, budgetExceeded, frame, body, args[0]!, args[1]!, args[2]!);
    default:
      return callMany(meter, span, budgetExceeded, frame, body, args);
  }
}

function compileUnary(ctx: CompileContext, expr: UnaryExpr): Eval {
  const operand = compileExpr(ctx, expr.operand);
  return expr.op === 'not' ? not(operand) : negate(operand);
}

function compileBinary(ctx: CompileContext, expr: BinaryExpr): Eval {
  if (expr.op === 'and' || expr.op === 'or') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    return expr.op === 'and' ? and(a, b) : or(a, b);
  }
  const type = typeOf(ctx, expr);
  const span = expr.span;
  if (type.kind === 'Text') {
    return concat(compileExpr(ctx, expr.left), compileExpr(ctx, expr.right), span, checkTextLength);
  }
  if (expr.op === 'div') {
    return divide(compileExpr(ctx, expr.left), compileExpr(ctx, expr.right), span, divisionByZero, notFinite);
  }
  if (expr.op === 'mod') {
    return modulo(compileExpr(ctx, expr.left), compileExpr(ctx, expr.right), span, moduloByZero, floorMod);
  }
  return arithmeticClosure(expr.op, type.kind === 'Int', operandOf(ctx, expr.left), operandOf(ctx, expr.right), span);
}

function compileCompare(ctx: CompileContext, expr: CompareExpr): Eval {
  switch (expr.op) {
    case 'lt':
    case 'gt':
    case 'le':
    case 'ge':
      return compareClosure(expr.op, operandOf(ctx, expr.left), operandOf(ctx, expr.right));
    case 'eq':
    case 'ne': {
      const type = typeOf(ctx, expr.left);
      if (isScalar(type)) return compareClosure(expr.op, operandOf(ctx, expr.left), operandOf(ctx, expr.right));
      const a = compileExpr(ctx, expr.left);
      const b = compileExpr(ctx, expr.right);
      const equals = createEquality(type, ctx.env.records);
      return expr.op === 'eq' ? structurallyEqual(a, b, equals) : structurallyDifferent(a, b, equals);
    }
    case 'in':
      return compileMembership(ctx, expr.left, expr.right, true);
    case 'contains': {
      if (typeOf(ctx, expr.left).kind === 'Text') {
        return textContains(compileExpr(ctx, expr.left), compileExpr(ctx, expr.right));
      }
      return compileMembership(ctx, expr.right, expr.left, false);
    }
  }
}

/** `item is one of list` / `list contains item`; `itemFirst` keeps left-to-right evaluation. */
function compileMembership(ctx: CompileContext, itemExpr: Expr, listExpr: Expr, itemFirst: boolean): Eval {
  const listType = typeOf(ctx, listExpr);
  const elementType = listType.kind === 'List' ? listType.element : typeOf(ctx, itemExpr);
  const item = compileExpr(ctx, itemExpr);
  if (isScalar(elementType)) {
    if (listExpr.kind === 'List' && listExpr.elements.every((e) => literalValue(e) !== undefined)) {
      return inConstants(item, listExpr.elements.map(literalValue));
    }
    const list = compileExpr(ctx, listExpr);
    return itemFirst ? itemInList(item, list) : listHasItem(list, item);
  }
  const list = compileExpr(ctx, listExpr);
  return memberOf(item, list, itemFirst, createEquality(elementType, ctx.env.records));
}

function compileBetween(ctx: CompileContext, expr: BetweenExpr): Eval {
  const value = compileExpr(ctx, expr.value);
  const low = literalValue(expr.low);
  const high = literalValue(expr.high);
  if (typeof low === 'number' && typeof high === 'number') return betweenConstants(value, low, high);
  return between(value, compileExpr(ctx, expr.low), compileExpr(ctx, expr.high));
}

/**
 * Expressions → closures. Every decision that can be made from the static type or the shape of
 * the operands is made here, once, so that the closures themselves do only the arithmetic:
 * variables are frame slots, record fields array positions, enum values integers.
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
  UnaryExpr,
} from '../ast/nodes.js';
import { createEquality, isScalar } from '../runtime/equality.js';
import { budgetExceeded } from '../runtime/meter.js';
import { checkTextLength, divisionByZero, floorMod, moduloByZero, notFinite } from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import type { TraceEntry } from '../api-types.js';
import { compileBuiltinCall } from './builtin-compiler.js';
import { arithmeticClosure, compareClosure } from './fused-operators.js';
import type { Operand } from './operand.js';
import { resolutionOf, typeOf, type CompileContext } from './compile-context.js';


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
    case 1: {
      const [a] = items as [Eval];
      return () => [a()];
    }
    case 2: {
      const [a, b] = items as [Eval, Eval];
      return () => [a(), b()];
    }
    case 3: {
      const [a, b, c] = items as [Eval, Eval, Eval];
      return () => [a(), b(), c()];
    }
    default:
      return () => {
        const out = new Array<unknown>(items.length);
        for (let i = 0; i < items.length; i++) out[i] = items[i]!();
        return out;
      };
  }
}

function compileRecord(ctx: CompileContext, expr: RecordExpr): Eval {
  const size = ctx.env.records.get(expr.typeName)!.fields.length;
  const parts = expr.fields.map((field) => {
    const resolution = resolutionOf(ctx, field.id);
    if (resolution.kind !== 'field') throw new Error('record field without position');
    return { index: resolution.index, value: compileExpr(ctx, field.value) };
  });
  const inOrder = parts.every((part, i) => part.index === i);
  if (inOrder) {
    const v = parts.map((p) => p.value);
    switch (size) {
      case 1: {
        const [a] = v as [Eval];
        return () => [a()];
      }
      case 2: {
        const [a, b] = v as [Eval, Eval];
        return () => [a(), b()];
      }
      case 3: {
        const [a, b, c] = v as [Eval, Eval, Eval];
        return () => [a(), b(), c()];
      }
      case 4: {
        const [a, b, c, d] = v as [Eval, Eval, Eval, Eval];
        return () => [a(), b(), c(), d()];
      }
      case 5: {
        const [a, b, c, d, e] = v as [Eval, Eval, Eval, Eval, Eval];
        return () => [a(), b(), c(), d(), e()];
      }
      case 6: {
        const [a, b, c, d, e, f] = v as [Eval, Eval, Eval, Eval, Eval, Eval];
        return () => [a(), b(), c(), d(), e(), f()];
      }
      default:
        break;
    }
  }
  // Fields are evaluated in the order written and stored in declaration order.
  const indexes = parts.map((p) => p.index);
  const values = parts.map((p) => p.value);
  return () => {
    const out = new Array<unknown>(size);
    for (let i = 0; i < values.length; i++) out[indexes[i]!] = values[i]!();
    return out;
  };
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
  const object = compileExpr(ctx, expr.object);
  return () => (object() as unknown[])[index];
}

function compileCall(ctx: CompileContext, expr: CallExpr): Eval {
  const resolution = resolutionOf(ctx, expr.id);
  const args = expr.args.map((arg) => compileExpr(ctx, arg));
  if (resolution.kind === 'builtin') return compileBuiltinCall(ctx, expr, resolution.name, args);
  if (resolution.kind !== 'rule') throw new Error(`call resolved to ${resolution.kind}`);
  const callee = ctx.compiled.get(resolution.name);
  if (callee === undefined) throw new Error(`rule \`${resolution.name}\` compiled after its caller`);
  const { frame, body } = callee;
  const meter = ctx.meter;
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
      sink.entries.push(entry);
      for (let i = 0; i < values.length; i++) frame[i] = values[i];
      const result = body();
      entry.value = toJson(result);
      return result;
    };
  }

  // Arguments are all evaluated before any is stored: an argument may call the same rule.
  switch (args.length) {
    case 0:
      return () => {
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        return body();
      };
    case 1: {
      const [a] = args as [Eval];
      return () => {
        const x = a();
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        frame[0] = x;
        return body();
      };
    }
    case 2: {
      const [a, b] = args as [Eval, Eval];
      return () => {
        const x = a();
        const y = b();
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        frame[0] = x;
        frame[1] = y;
        return body();
      };
    }
    case 3: {
      const [a, b, c] = args as [Eval, Eval, Eval];
      return () => {
        const x = a();
        const y = b();
        const z = c();
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        frame[0] = x;
        frame[1] = y;
        frame[2] = z;
        return body();
      };
    }
    default:
      return () => {
        const values = new Array<unknown>(args.length);
        for (let i = 0; i < args.length; i++) values[i] = args[i]!();
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        for (let i = 0; i < values.length; i++) frame[i] = values[i];
        return body();
      };
  }
}

function compileUnary(ctx: CompileContext, expr: UnaryExpr): Eval {
  const operand = compileExpr(ctx, expr.operand);
  if (expr.op === 'not') return () => !operand();
  // 0 - x rather than -x: no negative zero.
  return () => 0 - (operand() as number);
}

function compileBinary(ctx: CompileContext, expr: BinaryExpr): Eval {
  if (expr.op === 'and') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    return () => (a() as boolean) && (b() as boolean);
  }
  if (expr.op === 'or') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    return () => (a() as boolean) || (b() as boolean);
  }
  const type = typeOf(ctx, expr);
  if (type.kind === 'Text') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    const span = expr.span;
    return () => checkTextLength((a() as string) + (b() as string), span);
  }
  const span = expr.span;
  if (expr.op === 'div') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    return () => {
      const x = a() as number;
      const y = b() as number;
      if (y === 0) throw divisionByZero(span);
      const r = x / y;
      if (r - r !== 0) throw notFinite(span);
      return r;
    };
  }
  if (expr.op === 'mod') {
    const a = compileExpr(ctx, expr.left);
    const b = compileExpr(ctx, expr.right);
    return () => {
      const x = a() as number;
      const y = b() as number;
      if (y === 0) throw moduloByZero(span);
      return floorMod(x, y);
    };
  }
  return compileNumericBinary(ctx, expr, type.kind === 'Int');
}

function compileCompare(ctx: CompileContext, expr: CompareExpr): Eval {
  switch (expr.op) {
    case 'lt':
    case 'gt':
    case 'le':
    case 'ge':
      return compileOrdering(ctx, expr, expr.op);
    case 'eq':
    case 'ne': {
      const type = typeOf(ctx, expr.left);
      if (isScalar(type)) return compareClosure(expr.op, operandOf(ctx, expr.left), operandOf(ctx, expr.right));
      const a = compileExpr(ctx, expr.left);
      const b = compileExpr(ctx, expr.right);
      const equals = createEquality(type, ctx.env.records);
      return expr.op === 'eq' ? () => equals(a(), b()) : () => !equals(a(), b());
    }
    case 'in':
      return compileMembership(ctx, expr.left, expr.right, true);
    case 'contains': {
      const leftType = typeOf(ctx, expr.left);
      if (leftType.kind === 'Text') {
        const a = compileExpr(ctx, expr.left);
        const b = compileExpr(ctx, expr.right);
        return () => {
          const text = a() as string;
          return text.includes(b() as string);
        };
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
      const constants = listExpr.elements.map(literalValue);
      return () => constants.includes(item());
    }
    const list = compileExpr(ctx, listExpr);
    if (itemFirst) {
      return () => {
        const x = item();
        return (list() as unknown[]).includes(x);
      };
    }
    return () => {
      const items = list() as unknown[];
      return items.includes(item());
    };
  }
  const list = compileExpr(ctx, listExpr);
  const equals = createEquality(elementType, ctx.env.records);
  return () => {
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
}

function compileBetween(ctx: CompileContext, expr: BetweenExpr): Eval {
  const value = compileExpr(ctx, expr.value);
  const low = literalValue(expr.low);
  const high = literalValue(expr.high);
  if (typeof low === 'number' && typeof high === 'number') {
    return () => {
      const v = value() as number;
      return v >= low && v <= high;
    };
  }
  const lo = compileExpr(ctx, expr.low);
  const hi = compileExpr(ctx, expr.high);
  return () => {
    const v = value() as number;
    const l = lo() as number;
    const h = hi() as number;
    return v >= l && v <= h;
  };
}

function compileNumericBinary(ctx: CompileContext, expr: BinaryExpr, isInt: boolean): Eval {
  const op = expr.op as 'add' | 'sub' | 'mul';
  return arithmeticClosure(op, isInt, operandOf(ctx, expr.left), operandOf(ctx, expr.right), expr.span);
}

function compileOrdering(ctx: CompileContext, expr: CompareExpr, op: 'lt' | 'gt' | 'le' | 'ge'): Eval {
  return compareClosure(op, operandOf(ctx, expr.left), operandOf(ctx, expr.right));
}

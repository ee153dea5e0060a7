/**
 * Built-in function calls, specialised at compile time by the arguments' static types (an Int
 * passed to `round` needs no rounding, `length` of a list is not `length` of a text). Closures are
 * built by module-level factories that capture only what they use.
 */
import type { CallExpr, Span } from '../ast/nodes.js';
import type { BuiltinName } from '../checker/builtins.js';
import type { ValueType } from '../checker/types.js';
import { EvaluationError } from '../runtime/evaluation-error.js';
import {
  checkFloat,
  checkInt,
  checkTextLength,
  codePointLength,
  MAX_ROUND_DIGITS,
  notFinite,
  roundHalfAway,
  roundToDigits,
} from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import { createTextConversion } from '../runtime/text-conversion.js';
import type { CompileContext } from './compile-context.js';
import { typeOf } from './compile-context.js';

type Unary = (x: number) => number;

function invalidDigits(span: Span, digits: number): EvaluationError {
  return new EvaluationError('PL3006', `\`round\` takes 0 to ${MAX_ROUND_DIGITS} decimal digits, got \`${digits}\``, span);
}

// ---------- closure factories ----------

const min2 =
  (a: Eval, b: Eval): Eval =>
  () => {
    const x = a() as number;
    const y = b() as number;
    return y < x ? y : x;
  };

const max2 =
  (a: Eval, b: Eval): Eval =>
  () => {
    const x = a() as number;
    const y = b() as number;
    return y > x ? y : x;
  };

const extreme =
  (args: Eval[], smallest: boolean): Eval =>
  () => {
    let best = args[0]!() as number;
    for (let i = 1; i < args.length; i++) {
      const v = args[i]!() as number;
      if (smallest ? v < best : v > best) best = v;
    }
    return best;
  };

/** `abs`, `sqrt` of a non-negative number: total functions of one number. */
const numeric1 =
  (a: Eval, f: Unary): Eval =>
  () =>
    f(a() as number);

/** `round`, `floor`, `ceil` of a Float: an Int that must stay in the safe range. */
const toInt =
  (a: Eval, f: Unary, check: typeof checkInt, span: Span): Eval =>
  () =>
    check(f(a() as number) + 0, span);

const roundDigits =
  (a: Eval, b: Eval, span: Span, round: typeof roundToDigits, invalid: typeof invalidDigits, maxDigits: number): Eval =>
  () => {
    const x = a() as number;
    const digits = b() as number;
    if (digits < 0 || digits > maxDigits) throw invalid(span, digits);
    return round(x, digits);
  };

const power =
  (a: Eval, b: Eval, span: Span, infinite: typeof notFinite): Eval =>
  () => {
    const x = a() as number;
    const y = b() as number;
    const r = Math.pow(x, y);
    if (r - r !== 0) throw infinite(span, `\`power(${x}, ${y})\``);
    return r;
  };

const sqrt =
  (a: Eval, span: Span, infinite: typeof notFinite): Eval =>
  () => {
    const x = a() as number;
    if (x < 0) throw infinite(span, `the square root of \`${x}\``);
    return Math.sqrt(x);
  };

const textLength = (a: Eval, count: typeof codePointLength): Eval => () => count(a() as string);
const listLength = (a: Eval): Eval => () => (a() as unknown[]).length;

const sumInts =
  (a: Eval, check: typeof checkInt, span: Span): Eval =>
  () => {
    const items = a() as number[];
    let total = 0;
    for (let i = 0; i < items.length; i++) total = check(total + items[i]!, span);
    return total;
  };

const sumFloats =
  (a: Eval, check: typeof checkFloat, span: Span): Eval =>
  () => {
    const items = a() as number[];
    let total = 0;
    for (let i = 0; i < items.length; i++) total += items[i]!;
    return check(total, span);
  };

const append =
  (a: Eval, b: Eval): Eval =>
  () => {
    const items = a() as unknown[];
    const item = b();
    const out = items.slice();
    out.push(item);
    return out;
  };

const lower = (a: Eval): Eval => () => (a() as string).toLowerCase();
const upper = (a: Eval, check: typeof checkTextLength, span: Span): Eval => () => check((a() as string).toUpperCase(), span);
const trim = (a: Eval): Eval => () => (a() as string).trim();

const startsWith =
  (a: Eval, b: Eval): Eval =>
  () => {
    const text = a() as string;
    return text.startsWith(b() as string);
  };

const endsWith =
  (a: Eval, b: Eval): Eval =>
  () => {
    const text = a() as string;
    return text.endsWith(b() as string);
  };

const toText = (a: Eval, convert: (value: unknown) => string): Eval => () => convert(a());

const join =
  (a: Eval, b: Eval, check: typeof checkTextLength, span: Span): Eval =>
  () => {
    const items = a() as string[];
    const separator = b() as string;
    return check(items.join(separator), span);
  };

// ---------- compilation ----------

export function compileBuiltinCall(ctx: CompileContext, expr: CallExpr, name: BuiltinName, args: readonly Eval[]): Eval {
  const span = expr.span;
  const argType = (i: number): ValueType => typeOf(ctx, expr.args[i]!);
  const a = args[0]!;
  const b = args[1]!;
  switch (name) {
    case 'min':
      if (args.length === 1) return a;
      return args.length === 2 ? min2(a, b) : extreme([...args], true);
    case 'max':
      if (args.length === 1) return a;
      return args.length === 2 ? max2(a, b) : extreme([...args], false);
    case 'abs':
      return numeric1(a, Math.abs);
    case 'round':
      if (args.length === 2) return roundDigits(a, b, span, roundToDigits, invalidDigits, MAX_ROUND_DIGITS);
      return argType(0).kind === 'Int' ? a : toInt(a, roundHalfAway, checkInt, span);
    case 'floor':
      return argType(0).kind === 'Int' ? a : toInt(a, Math.floor, checkInt, span);
    case 'ceil':
      return argType(0).kind === 'Int' ? a : toInt(a, Math.ceil, checkInt, span);
    case 'power':
      return power(a, b, span, notFinite);
    case 'sqrt':
      return sqrt(a, span, notFinite);
    case 'length':
      return argType(0).kind === 'Text' ? textLength(a, codePointLength) : listLength(a);
    case 'count':
      return listLength(a);
    case 'sum': {
      const list = argType(0);
      const ofInts = list.kind === 'List' && list.element.kind === 'Int';
      return ofInts ? sumInts(a, checkInt, span) : sumFloats(a, checkFloat, span);
    }
    case 'append':
      return append(a, b);
    case 'lower':
      return lower(a);
    case 'upper':
      return upper(a, checkTextLength, span);
    case 'trim':
      return trim(a);
    case 'startsWith':
      return startsWith(a, b);
    case 'endsWith':
      return endsWith(a, b);
    case 'text':
      return toText(a, createTextConversion(argType(0), ctx.env.enums));
    case 'join':
      return join(a, b, checkTextLength, span);
  }
}

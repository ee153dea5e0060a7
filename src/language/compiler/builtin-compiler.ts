/**
 * Built-in function calls, specialised at compile time by the arguments' static types (an Int
 * passed to `round` needs no rounding, `length` of a list is not `length` of a text).
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

function minOf(args: readonly Eval[]): Eval {
  if (args.length === 1) return args[0]!;
  if (args.length === 2) {
    const [a, b] = args as [Eval, Eval];
    return () => {
      const x = a() as number;
      const y = b() as number;
      return y < x ? y : x;
    };
  }
  return () => {
    let best = args[0]!() as number;
    for (let i = 1; i < args.length; i++) {
      const v = args[i]!() as number;
      if (v < best) best = v;
    }
    return best;
  };
}

function maxOf(args: readonly Eval[]): Eval {
  if (args.length === 1) return args[0]!;
  if (args.length === 2) {
    const [a, b] = args as [Eval, Eval];
    return () => {
      const x = a() as number;
      const y = b() as number;
      return y > x ? y : x;
    };
  }
  return () => {
    let best = args[0]!() as number;
    for (let i = 1; i < args.length; i++) {
      const v = args[i]!() as number;
      if (v > best) best = v;
    }
    return best;
  };
}

function invalidDigits(span: Span, digits: number): EvaluationError {
  return new EvaluationError('PL3006', `\`round\` takes 0 to ${MAX_ROUND_DIGITS} decimal digits, got \`${digits}\``, span);
}

export function compileBuiltinCall(ctx: CompileContext, expr: CallExpr, name: BuiltinName, args: readonly Eval[]): Eval {
  const span = expr.span;
  const argType = (i: number): ValueType => typeOf(ctx, expr.args[i]!);
  const a = args[0]!;
  const b = args[1]!;
  switch (name) {
    case 'min':
      return minOf(args);
    case 'max':
      return maxOf(args);
    case 'abs':
      return () => Math.abs(a() as number);
    case 'round': {
      if (args.length === 2) {
        return () => {
          const x = a() as number;
          const digits = b() as number;
          if (digits < 0 || digits > MAX_ROUND_DIGITS) throw invalidDigits(span, digits);
          return roundToDigits(x, digits);
        };
      }
      if (argType(0).kind === 'Int') return a;
      return () => checkInt(roundHalfAway(a() as number), span);
    }
    case 'floor':
      if (argType(0).kind === 'Int') return a;
      return () => checkInt(Math.floor(a() as number) + 0, span);
    case 'ceil':
      if (argType(0).kind === 'Int') return a;
      return () => checkInt(Math.ceil(a() as number) + 0, span);
    case 'power':
      return () => {
        const x = a() as number;
        const y = b() as number;
        const r = Math.pow(x, y);
        if (r - r !== 0) throw notFinite(span, `\`power(${x}, ${y})\``);
        return r;
      };
    case 'sqrt':
      return () => {
        const x = a() as number;
        if (x < 0) throw notFinite(span, `the square root of \`${x}\``);
        return Math.sqrt(x);
      };
    case 'length':
      if (argType(0).kind === 'Text') return () => codePointLength(a() as string);
      return () => (a() as unknown[]).length;
    case 'count':
      return () => (a() as unknown[]).length;
    case 'sum': {
      const list = argType(0);
      if (list.kind === 'List' && list.element.kind === 'Int') {
        return () => {
          const items = a() as number[];
          let total = 0;
          for (let i = 0; i < items.length; i++) total = checkInt(total + items[i]!, span);
          return total;
        };
      }
      return () => {
        const items = a() as number[];
        let total = 0;
        for (let i = 0; i < items.length; i++) total += items[i]!;
        return checkFloat(total, span);
      };
    }
    case 'append':
      return () => {
        const items = a() as unknown[];
        const item = b();
        const out = items.slice();
        out.push(item);
        return out;
      };
    case 'lower':
      return () => (a() as string).toLowerCase();
    case 'upper':
      return () => checkTextLength((a() as string).toUpperCase(), span);
    case 'trim':
      return () => (a() as string).trim();
    case 'startsWith':
      return () => {
        const text = a() as string;
        return text.startsWith(b() as string);
      };
    case 'endsWith':
      return () => {
        const text = a() as string;
        return text.endsWith(b() as string);
      };
    case 'text': {
      const convert = createTextConversion(argType(0), ctx.env.enums);
      return () => convert(a());
    }
    case 'join':
      return () => {
        const items = a() as string[];
        const separator = b() as string;
        return checkTextLength(items.join(separator), span);
      };
  }
}

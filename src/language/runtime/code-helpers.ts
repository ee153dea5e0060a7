/**
 * The functions generated rule code calls (see compiler/code-generator.ts). Each one is small so
 * that the engine inlines it at its call site; together they carry the language's checks: the
 * safe Int range, finite Floats, zero divisors, text length, the step budget.
 */
import type { Span } from '../ast/nodes.js';
import { EvaluationError, ruleFailure } from './evaluation-error.js';
import { budgetExceeded, type Meter } from './meter.js';
import {
  checkFloat,
  checkInt,
  checkTextLength,
  codePointLength,
  divisionByZero,
  floorMod,
  MAX_ROUND_DIGITS,
  moduloByZero,
  notFinite,
  roundHalfAway,
  roundToDigits,
} from './numeric.js';
import { boolToText, floatToText, intToText } from './text-conversion.js';

export function createCodeHelpers(meter: Meter) {
  return {
    /** Throws PL4003; generated code calls it when `--m.left` goes below zero. */
    budget(span: Span): never {
      throw budgetExceeded(meter, span);
    },
    fail(message: string, span: Span): never {
      throw ruleFailure(message, span);
    },
    addI: (a: number, b: number, span: Span): number => checkInt(a + b, span),
    subI: (a: number, b: number, span: Span): number => checkInt(a - b, span),
    mulI: (a: number, b: number, span: Span): number => checkInt(a * b + 0, span),
    addF: (a: number, b: number, span: Span): number => checkFloat(a + b, span),
    subF: (a: number, b: number, span: Span): number => checkFloat(a - b, span),
    mulF: (a: number, b: number, span: Span): number => checkFloat(a * b, span),
    div(a: number, b: number, span: Span): number {
      if (b === 0) throw divisionByZero(span);
      const r = a / b;
      if (r - r !== 0) throw notFinite(span);
      return r;
    },
    mod(a: number, b: number, span: Span): number {
      if (b === 0) throw moduloByZero(span);
      return floorMod(a, b);
    },
    concat: (a: string, b: string, span: Span): string => checkTextLength(a + b, span),
    inList: (item: unknown, list: unknown[]): boolean => list.includes(item),
    listHas: (list: unknown[], item: unknown): boolean => list.includes(item),
    textHas: (text: string, part: string): boolean => text.includes(part),
    between: (v: number, low: number, high: number): boolean => v >= low && v <= high,
    min2: (a: number, b: number): number => (b < a ? b : a),
    max2: (a: number, b: number): number => (b > a ? b : a),
    minN(values: number[]): number {
      let best = values[0]!;
      for (let i = 1; i < values.length; i++) if (values[i]! < best) best = values[i]!;
      return best;
    },
    maxN(values: number[]): number {
      let best = values[0]!;
      for (let i = 1; i < values.length; i++) if (values[i]! > best) best = values[i]!;
      return best;
    },
    abs: Math.abs,
    roundI: (x: number, span: Span): number => checkInt(roundHalfAway(x), span),
    floorI: (x: number, span: Span): number => checkInt(Math.floor(x) + 0, span),
    ceilI: (x: number, span: Span): number => checkInt(Math.ceil(x) + 0, span),
    roundD(x: number, digits: number, span: Span): number {
      if (digits < 0 || digits > MAX_ROUND_DIGITS) {
        throw new EvaluationError('PL3006', `\`round\` takes 0 to ${MAX_ROUND_DIGITS} decimal digits, got \`${digits}\``, span);
      }
      return roundToDigits(x, digits);
    },
    power(x: number, y: number, span: Span): number {
      const r = Math.pow(x, y);
      if (r - r !== 0) throw notFinite(span, `\`power(${x}, ${y})\``);
      return r;
    },
    sqrt(x: number, span: Span): number {
      if (x < 0) throw notFinite(span, `the square root of \`${x}\``);
      return Math.sqrt(x);
    },
    textLength: codePointLength,
    size: (list: unknown[]): number => list.length,
    sumI(items: number[], span: Span): number {
      let total = 0;
      for (let i = 0; i < items.length; i++) total = checkInt(total + items[i]!, span);
      return total;
    },
    sumF(items: number[], span: Span): number {
      let total = 0;
      for (let i = 0; i < items.length; i++) total += items[i]!;
      return checkFloat(total, span);
    },
    append(items: unknown[], item: unknown): unknown[] {
      const out = items.slice();
      out.push(item);
      return out;
    },
    lower: (t: string): string => t.toLowerCase(),
    upper: (t: string, span: Span): string => checkTextLength(t.toUpperCase(), span),
    trim: (t: string): string => t.trim(),
    startsWith: (t: string, p: string): boolean => t.startsWith(p),
    endsWith: (t: string, p: string): boolean => t.endsWith(p),
    intText: intToText,
    floatText: floatToText,
    boolText: boolToText,
    join: (items: string[], separator: string, span: Span): string => checkTextLength(items.join(separator), span),
    // Input checks of generated entry functions: the same tests as runtime/input-conversion.ts.
    isInt: (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v),
    isFloat: (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v),
    isText: (v: unknown): boolean => typeof v === 'string',
    isBool: (v: unknown): boolean => typeof v === 'boolean',
    isArr: Array.isArray,
    isObj: (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v),
    keys(o: object): number {
      let count = 0;
      for (const _ in o) count++;
      return count;
    },
    own: (o: object, name: string): unknown => Object.getOwnPropertyDescriptor(o, name)?.value,
  };
}

export type CodeHelpers = ReturnType<typeof createCodeHelpers>;

/** Helper names the generated code may refer to; the generator's safety check allows exactly these. */
export const CODE_HELPER_NAMES: readonly string[] = Object.keys(createCodeHelpers({ left: 0, budget: 0 }));

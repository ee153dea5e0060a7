/**
 * The functions generated rule code calls for operators, statements and input checks (see
 * compiler/code-generator.ts); built-in functions bring their own (builtins/). Each one is small
 * so that the engine inlines it at its call site; together they carry the language's checks: the
 * safe Int range, finite Floats, zero divisors, text length, the step budget.
 */
import type { Span } from '../ast/nodes.js';
import { ruleFailure } from './evaluation-error.js';
import { nestedDeeperThan } from './json-depth.js';
import { budgetExceeded, type Meter } from './meter.js';
import { checkFloat, checkInt, checkTextLength, divisionByZero, floorMod, moduloByZero, notFinite } from './numeric.js';
import { MAX_VALUE_DEPTH } from './value-limits.js';

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
    /** The context's depth check when a parameter's type can nest deeper than the bound. */
    tooDeep: (context: unknown): boolean => nestedDeeperThan(context, MAX_VALUE_DEPTH + 1),
  };
}

export type CodeHelpers = ReturnType<typeof createCodeHelpers>;

/** Helper names the generated code may refer to; the generator's safety check allows exactly these. */
export const CODE_HELPER_NAMES: readonly string[] = Object.keys(createCodeHelpers({ left: 0, budget: 0 }));

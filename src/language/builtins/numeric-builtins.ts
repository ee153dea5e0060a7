/**
 * Built-ins on numbers: `min`, `max`, `abs`, `round`, `floor`, `ceil`, `power`, `sqrt`. Each
 * implementation is one function that both tiers call, so they agree by construction. Calls are
 * specialised by the arguments' static types: an Int passed to `round` needs no rounding.
 */
import type { Span } from '../ast/nodes.js';
import { ERROR, FLOAT, INT, assignable } from '../checker/types.js';
import { InvalidBuiltinArgument } from '../diagnostics/index.js';
import { EvaluationError } from '../runtime/evaluation-error.js';
import { checkInt, MAX_ROUND_DIGITS, notFinite, roundHalfAway, roundToDigits } from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import type { ArgumentChecks } from './argument-checks.js';
import type { BuiltinDefinition } from './builtin-definition.js';

const smaller = (x: number, y: number): number => (y < x ? y : x);
const larger = (x: number, y: number): number => (y > x ? y : x);

function smallest(values: number[]): number {
  let best = values[0]!;
  for (let i = 1; i < values.length; i++) best = smaller(best, values[i]!);
  return best;
}

function largest(values: number[]): number {
  let best = values[0]!;
  for (let i = 1; i < values.length; i++) best = larger(best, values[i]!);
  return best;
}

/** Arguments evaluated one at a time, left to right, keeping the best so far. */
const pickEach =
  (args: readonly Eval[], pick: (x: number, y: number) => number): Eval =>
  () => {
    let best = args[0]!() as number;
    for (let i = 1; i < args.length; i++) best = pick(best, args[i]!() as number);
    return best;
  };

/** `min`/`max`: Int when every argument is, Float otherwise. */
function extremeType(args: ArgumentChecks) {
  let allInt = true;
  let failed = false;
  for (let i = 0; i < args.count; i++) {
    const t = args.number(i);
    if (t === null || t.kind === 'Error') failed = true;
    else if (t.kind !== 'Int') allInt = false;
  }
  return failed ? ERROR : allInt ? INT : FLOAT;
}

function extreme(name: 'min' | 'max', pair: (x: number, y: number) => number, many: (values: number[]) => number): BuiltinDefinition {
  return {
    arity: [1, Infinity],
    check: extremeType,
    closure: ({ args }) => {
      const [a, b] = args;
      if (args.length === 1) return a!;
      if (args.length === 2) return () => pair(a!() as number, b!() as number);
      return pickEach(args, pair);
    },
    generated: ({ args }) => {
      if (args.length === 1) return args[0]!;
      if (args.length === 2) return `${name}2(${args[0]}, ${args[1]})`;
      return `${name}N([${args.join(', ')}])`;
    },
    helpers: { [`${name}2`]: pair, [`${name}N`]: many },
  };
}

export const min = extreme('min', smaller, smallest);
export const max = extreme('max', larger, largest);

export const abs: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => args.number(0) ?? ERROR,
  closure: ({ args: [a] }) => () => Math.abs(a!() as number),
  generated: ({ args: [a] }) => `abs(${a})`,
  helpers: { abs: Math.abs },
};

function roundDigits(x: number, digits: number, span: Span): number {
  if (digits < 0 || digits > MAX_ROUND_DIGITS) {
    throw new EvaluationError(InvalidBuiltinArgument.roundDigits(MAX_ROUND_DIGITS, digits), span);
  }
  return roundToDigits(x, digits);
}

const roundInt = (x: number, span: Span): number => checkInt(roundHalfAway(x), span);
const floorInt = (x: number, span: Span): number => checkInt(Math.floor(x) + 0, span);
const ceilInt = (x: number, span: Span): number => checkInt(Math.ceil(x) + 0, span);

export const round: BuiltinDefinition = {
  arity: [1, 2],
  check: (args) => {
    const ok = args.number(0) !== null;
    if (args.count === 2) {
      if (!assignable(args.types[1]!, INT)) args.mismatch(1, 'an `Int` (the number of decimal digits)');
      return ok ? FLOAT : ERROR;
    }
    return ok ? INT : ERROR;
  },
  closure: ({ args: [a, b], argTypes, span }) => {
    if (b !== undefined) return () => roundDigits(a!() as number, b() as number, span);
    return argTypes[0]!.kind === 'Int' ? a! : () => roundInt(a!() as number, span);
  },
  generated: ({ args: [a, b], argTypes, span }) => {
    if (b !== undefined) return `roundD(${a}, ${b}, ${span})`;
    return argTypes[0]!.kind === 'Int' ? a! : `roundI(${a}, ${span})`;
  },
  helpers: { roundD: roundDigits, roundI: roundInt },
};

/** `floor`/`ceil`: an Int stays as it is; a Float becomes an Int that must stay in the safe range. */
function toInt(name: 'floor' | 'ceil', convert: (x: number, span: Span) => number): BuiltinDefinition {
  return {
    arity: [1, 1],
    check: (args) => (args.number(0) !== null ? INT : ERROR),
    closure: ({ args: [a], argTypes, span }) => (argTypes[0]!.kind === 'Int' ? a! : () => convert(a!() as number, span)),
    generated: ({ args: [a], argTypes, span }) => (argTypes[0]!.kind === 'Int' ? a! : `${name}I(${a}, ${span})`),
    helpers: { [`${name}I`]: convert },
  };
}

export const floor = toInt('floor', floorInt);
export const ceil = toInt('ceil', ceilInt);

function powerOf(x: number, y: number, span: Span): number {
  const r = Math.pow(x, y);
  if (r - r !== 0) throw notFinite(span, `\`power(${x}, ${y})\``);
  return r;
}

export const power: BuiltinDefinition = {
  arity: [2, 2],
  check: (args) => {
    const a = args.number(0);
    const b = args.number(1);
    return a && b ? FLOAT : ERROR;
  },
  closure: ({ args: [a, b], span }) => () => powerOf(a!() as number, b!() as number, span),
  generated: ({ args: [a, b], span }) => `power(${a}, ${b}, ${span})`,
  helpers: { power: powerOf },
};

function squareRoot(x: number, span: Span): number {
  if (x < 0) throw notFinite(span, `the square root of \`${x}\``);
  return Math.sqrt(x);
}

export const sqrt: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => (args.number(0) !== null ? FLOAT : ERROR),
  closure: ({ args: [a], span }) => () => squareRoot(a!() as number, span),
  generated: ({ args: [a], span }) => `sqrt(${a}, ${span})`,
  helpers: { sqrt: squareRoot },
};

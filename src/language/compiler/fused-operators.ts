/**
 * Comparisons and arithmetic specialised by operand shape (see operand.ts). Each shape gets its
 * own closure so the common forms — a variable or field against a constant, two variables — run
 * without calling operand closures. Shapes without a fused form fall back to operand closures.
 *
 * The tables below hold one factory per shape and operator. Each closure is a function literal of
 * its own, so its operator and operand reads stay inline: no call decides the operator at run time.
 */
import type { Span } from '../ast/nodes.js';
import { freshTemplates } from '../runtime/closure-template.js';
import { checkFloat, checkInt } from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import { operandEval, type Operand } from './operand.js';

export type ComparisonOp = 'lt' | 'gt' | 'le' | 'ge' | 'eq' | 'ne';

type Comparison<Operands extends unknown[]> = Record<ComparisonOp, (...operands: Operands) => Eval>;

const COMPARISONS: {
  /** A variable against a constant: `rate is greater than 500`. */
  readonly slotConst: Comparison<[frame: unknown[], s: number, c: unknown]>;
  /** A variable's field against a constant: `applicant.creditScore is at least 700`. */
  readonly fieldConst: Comparison<[frame: unknown[], s: number, i: number, c: unknown]>;
  /** Two variables of one rule. */
  readonly slotSlot: Comparison<[frame: unknown[], s: number, t: number]>;
  /** Any operand closure against a constant. */
  readonly evalConst: Comparison<[a: Eval, c: unknown]>;
  /** Any two operand closures. */
  readonly evalEval: Comparison<[a: Eval, b: Eval]>;
} = {
  slotConst: {
    lt: (frame, s, c) => () => (frame[s] as number) < (c as number),
    gt: (frame, s, c) => () => (frame[s] as number) > (c as number),
    le: (frame, s, c) => () => (frame[s] as number) <= (c as number),
    ge: (frame, s, c) => () => (frame[s] as number) >= (c as number),
    eq: (frame, s, c) => () => frame[s] === c,
    ne: (frame, s, c) => () => frame[s] !== c,
  },
  fieldConst: {
    lt: (frame, s, i, c) => () => ((frame[s] as unknown[])[i] as number) < (c as number),
    gt: (frame, s, i, c) => () => ((frame[s] as unknown[])[i] as number) > (c as number),
    le: (frame, s, i, c) => () => ((frame[s] as unknown[])[i] as number) <= (c as number),
    ge: (frame, s, i, c) => () => ((frame[s] as unknown[])[i] as number) >= (c as number),
    eq: (frame, s, i, c) => () => (frame[s] as unknown[])[i] === c,
    ne: (frame, s, i, c) => () => (frame[s] as unknown[])[i] !== c,
  },
  slotSlot: {
    lt: (frame, s, t) => () => (frame[s] as number) < (frame[t] as number),
    gt: (frame, s, t) => () => (frame[s] as number) > (frame[t] as number),
    le: (frame, s, t) => () => (frame[s] as number) <= (frame[t] as number),
    ge: (frame, s, t) => () => (frame[s] as number) >= (frame[t] as number),
    eq: (frame, s, t) => () => frame[s] === frame[t],
    ne: (frame, s, t) => () => frame[s] !== frame[t],
  },
  evalConst: {
    lt: (a, c) => () => (a() as number) < (c as number),
    gt: (a, c) => () => (a() as number) > (c as number),
    le: (a, c) => () => (a() as number) <= (c as number),
    ge: (a, c) => () => (a() as number) >= (c as number),
    eq: (a, c) => () => a() === c,
    ne: (a, c) => () => a() !== c,
  },
  evalEval: {
    lt: (a, b) => () => (a() as number) < (b() as number),
    gt: (a, b) => () => (a() as number) > (b() as number),
    le: (a, b) => () => (a() as number) <= (b() as number),
    ge: (a, b) => () => (a() as number) >= (b() as number),
    eq: (a, b) => () => a() === b(),
    ne: (a, b) => () => a() !== b(),
  },
};

/** Numeric ordering, or `===`/`!==` on scalars (numbers, Text, Bool, enum indices). */
export function compareClosure(op: ComparisonOp, left: Operand, right: Operand): Eval {
  if (right.kind === 'const') {
    const c = right.value;
    if (left.kind === 'slot') return COMPARISONS.slotConst[op](left.frame, left.slot, c);
    if (left.kind === 'field') return COMPARISONS.fieldConst[op](left.frame, left.slot, left.index, c);
    return COMPARISONS.evalConst[op](operandEval(left), c);
  }
  if (left.kind === 'slot' && right.kind === 'slot' && left.frame === right.frame) {
    return COMPARISONS.slotSlot[op](left.frame, left.slot, right.slot);
  }
  return COMPARISONS.evalEval[op](operandEval(left), operandEval(right));
}

export type ArithmeticOp = 'add' | 'sub' | 'mul';

/** Checks a result and returns it: Int against the safe range, Float for finiteness. */
type Check = (value: number, span: Span) => number;

/** `+ 0` turns the negative zero of a product (-3 * 0) into 0: Int has no negative zero. Float keeps it. */
const checkIntProduct: Check = (value, span) => checkInt(value + 0, span);

/** Factories take the shape's operands, then the result check and the span its error reports. */
type Arithmetic<Operands extends unknown[]> = Record<ArithmeticOp, (...args: [...Operands, check: Check, span: Span]) => Eval>;

interface ArithmeticShapes {
  /** A variable and a constant: `Let rate be rate plus 50`. */
  readonly slotConst: Arithmetic<[frame: unknown[], s: number, c: number]>;
  /** Two variables of one rule. */
  readonly slotSlot: Arithmetic<[frame: unknown[], s: number, t: number]>;
  /** Any operand closure and a constant. */
  readonly evalConst: Arithmetic<[a: Eval, c: number]>;
  /** Any two operand closures. */
  readonly evalEval: Arithmetic<[a: Eval, b: Eval]>;
}

/** The factories as written; Int arithmetic uses them as they are. */
const INT_ARITHMETIC: ArithmeticShapes = {
  slotConst: {
    add: (frame, s, c, check, span) => () => check((frame[s] as number) + c, span),
    sub: (frame, s, c, check, span) => () => check((frame[s] as number) - c, span),
    mul: (frame, s, c, check, span) => () => check((frame[s] as number) * c, span),
  },
  slotSlot: {
    add: (frame, s, t, check, span) => () => check((frame[s] as number) + (frame[t] as number), span),
    sub: (frame, s, t, check, span) => () => check((frame[s] as number) - (frame[t] as number), span),
    mul: (frame, s, t, check, span) => () => check((frame[s] as number) * (frame[t] as number), span),
  },
  evalConst: {
    add: (a, c, check, span) => () => check((a() as number) + c, span),
    sub: (a, c, check, span) => () => check((a() as number) - c, span),
    mul: (a, c, check, span) => () => check((a() as number) * c, span),
  },
  evalEval: {
    add: (a, b, check, span) => () => check((a() as number) + (b() as number), span),
    sub: (a, b, check, span) => () => check((a() as number) - (b() as number), span),
    mul: (a, b, check, span) => () => check((a() as number) * (b() as number), span),
  },
};

function copied<Operands extends unknown[]>(factories: Arithmetic<Operands>): Arithmetic<Operands> {
  return { add: freshTemplates(factories.add), sub: freshTemplates(factories.sub), mul: freshTemplates(factories.mul) };
}

/**
 * Float arithmetic uses fresh copies of the same factories (closure-template.ts). The engine keeps
 * its feedback per function body, so with copies Int closures see only integers and each `check`
 * call site sees one function, which the engine inlines; shared bodies measured about 6% slower
 * on arithmetic over both types.
 */
const FLOAT_ARITHMETIC: ArithmeticShapes = {
  slotConst: copied(INT_ARITHMETIC.slotConst),
  slotSlot: copied(INT_ARITHMETIC.slotSlot),
  evalConst: copied(INT_ARITHMETIC.evalConst),
  evalEval: copied(INT_ARITHMETIC.evalEval),
};

/** `+ - *` on numbers; Int results are checked against the safe range, Float results for finiteness. */
export function arithmeticClosure(op: ArithmeticOp, isInt: boolean, left: Operand, right: Operand, span: Span): Eval {
  const shapes = isInt ? INT_ARITHMETIC : FLOAT_ARITHMETIC;
  const check = !isInt ? checkFloat : op === 'mul' ? checkIntProduct : checkInt;
  if (left.kind === 'slot' && right.kind === 'const') {
    return shapes.slotConst[op](left.frame, left.slot, right.value as number, check, span);
  }
  if (left.kind === 'slot' && right.kind === 'slot' && left.frame === right.frame) {
    return shapes.slotSlot[op](left.frame, left.slot, right.slot, check, span);
  }
  const a = operandEval(left);
  if (right.kind === 'const') return shapes.evalConst[op](a, right.value as number, check, span);
  return shapes.evalEval[op](a, operandEval(right), check, span);
}

/**
 * Comparisons and arithmetic specialised by operand shape (see operand.ts). Each shape gets its
 * own closure so the common forms — a variable or field against a constant, two variables — run
 * without calling operand closures. Shapes without a fused form fall back to operand closures.
 */
import type { Span } from '../ast/nodes.js';
import { checkFloat, checkInt } from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import { operandEval, type Operand } from './operand.js';

type Check = typeof checkInt;

// Factories for the shapes that call an operand closure.
const ltConst = (a: Eval, c: number): Eval => () => (a() as number) < c;
const gtConst = (a: Eval, c: number): Eval => () => (a() as number) > c;
const leConst = (a: Eval, c: number): Eval => () => (a() as number) <= c;
const geConst = (a: Eval, c: number): Eval => () => (a() as number) >= c;
const eqConst = (a: Eval, c: unknown): Eval => () => a() === c;
const neConst = (a: Eval, c: unknown): Eval => () => a() !== c;
const lt = (a: Eval, b: Eval): Eval => () => (a() as number) < (b() as number);
const gt = (a: Eval, b: Eval): Eval => () => (a() as number) > (b() as number);
const le = (a: Eval, b: Eval): Eval => () => (a() as number) <= (b() as number);
const ge = (a: Eval, b: Eval): Eval => () => (a() as number) >= (b() as number);
const eq = (a: Eval, b: Eval): Eval => () => a() === b();
const ne = (a: Eval, b: Eval): Eval => () => a() !== b();
const addConst = (a: Eval, c: number, check: Check, span: Span): Eval => () => check((a() as number) + c, span);
const subConst = (a: Eval, c: number, check: Check, span: Span): Eval => () => check((a() as number) - c, span);
const mulConst = (a: Eval, c: number, check: Check, span: Span): Eval => () => check((a() as number) * c + 0, span);
const add = (a: Eval, b: Eval, check: Check, span: Span): Eval => () => check((a() as number) + (b() as number), span);
const sub = (a: Eval, b: Eval, check: Check, span: Span): Eval => () => check((a() as number) - (b() as number), span);
const mul = (a: Eval, b: Eval, check: Check, span: Span): Eval => () => check((a() as number) * (b() as number) + 0, span);

export type ComparisonOp = 'lt' | 'gt' | 'le' | 'ge' | 'eq' | 'ne';

/** Numeric ordering, or `===`/`!==` on scalars (numbers, Text, Bool, enum indices). */
export function compareClosure(op: ComparisonOp, left: Operand, right: Operand): Eval {
  if (right.kind === 'const') {
    const c = right.value;
    if (left.kind === 'slot') {
      const { frame, slot: s } = left;
      switch (op) {
        case 'lt':
          return () => (frame[s] as number) < (c as number);
        case 'gt':
          return () => (frame[s] as number) > (c as number);
        case 'le':
          return () => (frame[s] as number) <= (c as number);
        case 'ge':
          return () => (frame[s] as number) >= (c as number);
        case 'eq':
          return () => frame[s] === c;
        case 'ne':
          return () => frame[s] !== c;
      }
    }
    if (left.kind === 'field') {
      const { frame, slot: s, index: i } = left;
      switch (op) {
        case 'lt':
          return () => ((frame[s] as unknown[])[i] as number) < (c as number);
        case 'gt':
          return () => ((frame[s] as unknown[])[i] as number) > (c as number);
        case 'le':
          return () => ((frame[s] as unknown[])[i] as number) <= (c as number);
        case 'ge':
          return () => ((frame[s] as unknown[])[i] as number) >= (c as number);
        case 'eq':
          return () => (frame[s] as unknown[])[i] === c;
        case 'ne':
          return () => (frame[s] as unknown[])[i] !== c;
      }
    }
    const a = operandEval(left);
    switch (op) {
      case 'lt':
        return ltConst(a, c as number);
      case 'gt':
        return gtConst(a, c as number);
      case 'le':
        return leConst(a, c as number);
      case 'ge':
        return geConst(a, c as number);
      case 'eq':
        return eqConst(a, c);
      case 'ne':
        return neConst(a, c);
    }
  }
  if (left.kind === 'slot' && right.kind === 'slot' && left.frame === right.frame) {
    const frame = left.frame;
    const s = left.slot;
    const t = right.slot;
    switch (op) {
      case 'lt':
        return () => (frame[s] as number) < (frame[t] as number);
      case 'gt':
        return () => (frame[s] as number) > (frame[t] as number);
      case 'le':
        return () => (frame[s] as number) <= (frame[t] as number);
      case 'ge':
        return () => (frame[s] as number) >= (frame[t] as number);
      case 'eq':
        return () => frame[s] === frame[t];
      case 'ne':
        return () => frame[s] !== frame[t];
    }
  }
  const a = operandEval(left);
  const b = operandEval(right);
  switch (op) {
    case 'lt':
      return lt(a, b);
    case 'gt':
      return gt(a, b);
    case 'le':
      return le(a, b);
    case 'ge':
      return ge(a, b);
    case 'eq':
      return eq(a, b);
    case 'ne':
      return ne(a, b);
  }
}

export type ArithmeticOp = 'add' | 'sub' | 'mul';

/** `+ - *` on numbers; Int results are checked against the safe range, Float results for finiteness. */
export function arithmeticClosure(op: ArithmeticOp, isInt: boolean, left: Operand, right: Operand, span: Span): Eval {
  const check: Check = isInt ? checkInt : checkFloat;
  const leaf = isInt ? intLeafArithmetic(op, left, right, span) : floatLeafArithmetic(op, left, right, span);
  if (leaf !== null) return leaf;
  const a = operandEval(left);
  if (right.kind === 'const') {
    const c = right.value as number;
    switch (op) {
      case 'add':
        return addConst(a, c, check, span);
      case 'sub':
        return subConst(a, c, check, span);
      case 'mul':
        return mulConst(a, c, check, span);
    }
  }
  const b = operandEval(right);
  switch (op) {
    case 'add':
      return add(a, b, check, span);
    case 'sub':
      return sub(a, b, check, span);
    case 'mul':
      return mul(a, b, check, span);
  }
}

// `+ 0` after `*` turns a negative zero (e.g. -3 * 0) into 0: Int has no negative zero.
function intLeafArithmetic(op: ArithmeticOp, left: Operand, right: Operand, span: Span): Eval | null {
  if (left.kind === 'slot' && right.kind === 'const') {
    const { frame, slot: s } = left;
    const c = right.value as number;
    switch (op) {
      case 'add':
        return () => checkInt((frame[s] as number) + c, span);
      case 'sub':
        return () => checkInt((frame[s] as number) - c, span);
      case 'mul':
        return () => checkInt((frame[s] as number) * c + 0, span);
    }
  }
  if (left.kind === 'slot' && right.kind === 'slot' && left.frame === right.frame) {
    const frame = left.frame;
    const s = left.slot;
    const t = right.slot;
    switch (op) {
      case 'add':
        return () => checkInt((frame[s] as number) + (frame[t] as number), span);
      case 'sub':
        return () => checkInt((frame[s] as number) - (frame[t] as number), span);
      case 'mul':
        return () => checkInt((frame[s] as number) * (frame[t] as number) + 0, span);
    }
  }
  return null;
}

function floatLeafArithmetic(op: ArithmeticOp, left: Operand, right: Operand, span: Span): Eval | null {
  if (left.kind === 'slot' && right.kind === 'const') {
    const { frame, slot: s } = left;
    const c = right.value as number;
    switch (op) {
      case 'add':
        return () => checkFloat((frame[s] as number) + c, span);
      case 'sub':
        return () => checkFloat((frame[s] as number) - c, span);
      case 'mul':
        return () => checkFloat((frame[s] as number) * c, span);
    }
  }
  if (left.kind === 'slot' && right.kind === 'slot' && left.frame === right.frame) {
    const frame = left.frame;
    const s = left.slot;
    const t = right.slot;
    switch (op) {
      case 'add':
        return () => checkFloat((frame[s] as number) + (frame[t] as number), span);
      case 'sub':
        return () => checkFloat((frame[s] as number) - (frame[t] as number), span);
      case 'mul':
        return () => checkFloat((frame[s] as number) * (frame[t] as number), span);
    }
  }
  return null;
}

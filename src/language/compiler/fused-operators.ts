/**
 * Comparisons and arithmetic specialised by operand shape (see operand.ts). Each shape gets its
 * own closure so the common forms — a variable or field against a constant, two variables — run
 * without calling operand closures. Shapes without a fused form fall back to operand closures.
 */
import type { Span } from '../ast/nodes.js';
import { checkFloat, checkInt } from '../runtime/numeric.js';
import type { Eval } from '../runtime/program-runtime.js';
import { operandEval, type Operand } from './operand.js';

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
        return () => (a() as number) < (c as number);
      case 'gt':
        return () => (a() as number) > (c as number);
      case 'le':
        return () => (a() as number) <= (c as number);
      case 'ge':
        return () => (a() as number) >= (c as number);
      case 'eq':
        return () => a() === c;
      case 'ne':
        return () => a() !== c;
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
      return () => (a() as number) < (b() as number);
    case 'gt':
      return () => (a() as number) > (b() as number);
    case 'le':
      return () => (a() as number) <= (b() as number);
    case 'ge':
      return () => (a() as number) >= (b() as number);
    case 'eq':
      return () => a() === b();
    case 'ne':
      return () => a() !== b();
  }
}

export type ArithmeticOp = 'add' | 'sub' | 'mul';

/** `+ - *` on numbers; Int results are checked against the safe range, Float results for finiteness. */
export function arithmeticClosure(op: ArithmeticOp, isInt: boolean, left: Operand, right: Operand, span: Span): Eval {
  return isInt ? intArithmetic(op, left, right, span) : floatArithmetic(op, left, right, span);
}

// `+ 0` after `*` turns a negative zero (e.g. -3 * 0) into 0: Int has no negative zero.
function intArithmetic(op: ArithmeticOp, left: Operand, right: Operand, span: Span): Eval {
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
  const a = operandEval(left);
  if (right.kind === 'const') {
    const c = right.value as number;
    switch (op) {
      case 'add':
        return () => checkInt((a() as number) + c, span);
      case 'sub':
        return () => checkInt((a() as number) - c, span);
      case 'mul':
        return () => checkInt((a() as number) * c + 0, span);
    }
  }
  const b = operandEval(right);
  switch (op) {
    case 'add':
      return () => checkInt((a() as number) + (b() as number), span);
    case 'sub':
      return () => checkInt((a() as number) - (b() as number), span);
    case 'mul':
      return () => checkInt((a() as number) * (b() as number) + 0, span);
  }
}

function floatArithmetic(op: ArithmeticOp, left: Operand, right: Operand, span: Span): Eval {
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
  const a = operandEval(left);
  if (right.kind === 'const') {
    const c = right.value as number;
    switch (op) {
      case 'add':
        return () => checkFloat((a() as number) + c, span);
      case 'sub':
        return () => checkFloat((a() as number) - c, span);
      case 'mul':
        return () => checkFloat((a() as number) * c, span);
    }
  }
  const b = operandEval(right);
  switch (op) {
    case 'add':
      return () => checkFloat((a() as number) + (b() as number), span);
    case 'sub':
      return () => checkFloat((a() as number) - (b() as number), span);
    case 'mul':
      return () => checkFloat((a() as number) * (b() as number), span);
  }
}

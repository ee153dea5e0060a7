/**
 * Operands of fused closures. A constant, a variable or a variable's field is read inside the
 * operator's own closure instead of through a closure call of its own: business rules are mostly
 * `applicant.creditScore is at least 700` and `Let rate be rate plus 50`, so fusing these leaves
 * removes most calls from the hot path.
 */
import type { Eval } from '../runtime/program-runtime.js';

export type Operand =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'slot'; readonly frame: unknown[]; readonly slot: number }
  | { readonly kind: 'field'; readonly frame: unknown[]; readonly slot: number; readonly index: number }
  | { readonly kind: 'eval'; readonly eval: Eval };

/** The operand as a plain closure, for operators without a fused form for its shape. */
export function operandEval(operand: Operand): Eval {
  switch (operand.kind) {
    case 'const': {
      const value = operand.value;
      return () => value;
    }
    case 'slot': {
      const { frame, slot } = operand;
      return () => frame[slot];
    }
    case 'field': {
      const { frame, slot, index } = operand;
      return () => (frame[slot] as unknown[])[index];
    }
    case 'eval':
      return operand.eval;
  }
}

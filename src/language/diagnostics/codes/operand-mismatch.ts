/**
 * PL2007: an operator applied to values it does not take. Operands arrive as type names; the
 * arithmetic situations also carry kinds, to suggest `text(…)` when a `Text` is joined with `+`.
 */
import { defineDiagnostic } from '../define-diagnostic.js';
import type { ShownType } from './shown-type.js';

export type ArithmeticOperator = 'add' | 'sub' | 'mul' | 'div' | 'mod';

const ARITHMETIC_PHRASE: Record<ArithmeticOperator, (a: string, b: string) => string> = {
  add: (a, b) => `cannot add \`${a}\` and \`${b}\``,
  sub: (a, b) => `cannot subtract \`${b}\` from \`${a}\``,
  mul: (a, b) => `cannot multiply \`${a}\` by \`${b}\``,
  div: (a, b) => `cannot divide \`${a}\` by \`${b}\``,
  mod: (a, b) => `cannot take \`${a}\` modulo \`${b}\``,
};

export const OperandMismatch = defineDiagnostic('PL2007', 'operator cannot be applied to these operand types', {
  not: (found: string) => ({ message: `\`not\` needs a \`Bool\` value, found \`${found}\`` }),
  negate: (found: string) => ({ message: `cannot negate a \`${found}\` value; only numbers can be negated` }),
  /** `operator` is `and` or `or`. */
  logical: (operator: string, found: string) => ({ message: `\`${operator}\` needs \`Bool\` values, found \`${found}\`` }),
  arithmetic: (operator: ArithmeticOperator, left: ShownType, right: ShownType) => ({
    message: ARITHMETIC_PHRASE[operator](left.name, right.name),
    help: operator === 'add' && (left.kind === 'Text' || right.kind === 'Text') ? 'use `text(…)` to turn a value into `Text` before joining texts with `+`' : undefined,
  }),
  compare: (left: string, right: string) => ({ message: `cannot compare \`${left}\` with \`${right}\`` }),
  order: (left: string, right: string) => ({ message: `cannot order \`${left}\` and \`${right}\`; ordering comparisons need numbers` }),
  lookIn: (value: string, container: string) => ({ message: `cannot look for a \`${value}\` value in a \`${container}\`` }),
  oneOfNeedsList: (found: string) => ({ message: `\`is one of\` needs a list on its right, found \`${found}\`` }),
  textContains: (found: string) => ({ message: `a \`Text\` can only contain \`Text\`, found \`${found}\`` }),
  containsNeedsCollection: (found: string) => ({ message: `\`contains\` needs a list or \`Text\` on its left, found \`${found}\`` }),
  between: (found: string) => ({ message: `\`between\` compares numbers, found \`${found}\`` }),
});

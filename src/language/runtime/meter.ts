import type { Span } from '../ast/nodes.js';
import { StepBudgetExceeded } from '../diagnostics/index.js';
import { EvaluationError } from './evaluation-error.js';

export const DEFAULT_STEP_BUDGET = 1_000_000;

/**
 * Steps left in the running evaluation. Every statement, loop iteration and call takes one;
 * compiled code decrements `left` inline and calls `budgetExceeded` when it goes below zero.
 */
export interface Meter {
  left: number;
  budget: number;
}

export function createMeter(): Meter {
  return { left: 0, budget: 0 };
}

export function budgetExceeded(meter: Meter, span: Span): EvaluationError {
  return new EvaluationError(StepBudgetExceeded(meter.budget), span);
}

export { evaluate, validateStepBudget } from './evaluate.js';
export { DEFAULT_STEP_BUDGET } from './meter.js';
export { EvaluationError } from './evaluation-error.js';

export { evaluate, validateStepBudget } from './evaluate.js';
export { DEFAULT_STEP_BUDGET } from './meter.js';
export { DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_TRACE_BYTES } from './value-limits.js';
export { EvaluationError } from './evaluation-error.js';

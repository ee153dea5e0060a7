/**
 * Bounds on the values an evaluation hands back: the result's and the decision trace's JSON size
 * and the nesting depth of any value that is converted to or from JSON. They keep the work and
 * memory of one evaluation bounded before anything large or deep is built, and keep every
 * conversion's recursion far from the engine's stack limit.
 */
import { NestingTooDeep, ResultTooLarge, TraceTooLarge } from '../diagnostics/index.js';
import { EvaluationError } from './evaluation-error.js';

/** Default `EvaluateOptions.maxResultBytes`: 1 MiB of JSON. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

/** Default `EvaluateOptions.maxTraceBytes`: 1 MiB of JSON. */
export const DEFAULT_MAX_TRACE_BYTES = 1024 * 1024;

/** Deepest nesting of lists and records in a value converted to or from JSON, as in source (§7). */
export const MAX_VALUE_DEPTH = 64;

/** A byte limit that is not a positive integer is a programming error, like a bad step budget. */
export function validateByteLimit(setting: string, limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`${setting} must be a positive integer, got ${String(limit)}`);
  }
  return limit;
}

export function resultTooLarge(limit: number): EvaluationError {
  return new EvaluationError(ResultTooLarge(limit), null);
}

export function traceTooLarge(limit: number): EvaluationError {
  return new EvaluationError(TraceTooLarge(limit), null);
}

/** `what` names the value: `the result`, `a value in the decision trace`. */
export function valueTooDeep(what: string): EvaluationError {
  return new EvaluationError(NestingTooDeep.value(what, MAX_VALUE_DEPTH), null);
}

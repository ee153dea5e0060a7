/** PL4xxx: limits that keep the work of one compile or evaluation bounded. */
import { defineDiagnostic } from '../define-diagnostic.js';

export const SourceTooLarge = defineDiagnostic('PL4001', 'source is larger than 64 KiB', (bytes: number, maxBytes: number) => ({
  message: `source is ${bytes} bytes of UTF-8, larger than the limit of ${maxBytes} bytes (64 KiB)`,
  help: 'move some of its rules into another module',
}));

export const NestingTooDeep = defineDiagnostic('PL4002', 'nesting deeper than 64 levels (source, a result or a value in the decision trace)', {
  source: (maxDepth: number) => ({ message: `nesting deeper than ${maxDepth} levels`, help: 'move part of it into a separate rule or a `Let`' }),
  compile: () => ({ message: 'the module is nested too deeply to compile', help: 'move part of a long expression into a separate rule or a `Let`' }),
  evaluate: () => ({ message: 'the input or the expressions are nested too deeply to evaluate' }),
  /** `what` names the value: `the result`, `a value in the decision trace`. */
  value: (what: string, maxDepth: number) => ({ message: `${what} is nested deeper than ${maxDepth} levels` }),
});

export const StepBudgetExceeded = defineDiagnostic('PL4003', 'step budget exceeded', (budget: number) => ({
  message: `step budget of ${budget} steps exceeded`,
  help: 'loop over fewer items, or split the work into several evaluations',
}));

/** Raised by the host that enforces the wall-time limit, never by compile or evaluate themselves. */
export const EvaluationTimedOut = defineDiagnostic('PL4004', 'evaluation timed out (wall-time limit enforced outside the interpreter thread)', (limitMs: number) => ({
  message: `evaluation timed out after ${limitMs} ms`,
  help: 'loop over fewer items, or split the work into several evaluations',
}));

export const TextTooLong = defineDiagnostic('PL4005', 'text value longer than the interpreter allows (2^24 characters)', (maxLength: number) => ({
  message: `text would be longer than ${maxLength} characters`,
  help: 'build a shorter text, e.g. join fewer or shorter parts',
}));

export const ResultTooLarge = defineDiagnostic('PL4006', 'result is larger than `maxResultBytes` (default 1 MiB of JSON)', (limit: number) => ({
  message: `result is larger than ${limit} bytes (maxResultBytes)`,
  help: 'return a smaller result, e.g. a summary instead of a whole list',
}));

export const TraceTooLarge = defineDiagnostic('PL4007', 'decision trace is larger than `maxTraceBytes` (default 1 MiB of JSON)', (limit: number) => ({
  message: `decision trace is larger than ${limit} bytes (maxTraceBytes)`,
  help: 'evaluate without the trace, or with a smaller context',
}));

export const AwaitTooLong = defineDiagnostic('PL4008', 'the time limit of an awaited signal is longer than 365 days', (maxMinutes: number, amount: number, unit: string) => ({
  message: `the time limit of an awaited signal is at most 365 days (${maxMinutes} minutes), not ${amount} ${unit}`,
  help: 'leave out `within` for a signal that may take any time, or shorten the limit',
}));

export const TooManySteps = defineDiagnostic('PL4009', 'a workflow has more than 2,000 steps', (workflow: string, steps: number, maxSteps: number) => ({
  message: `workflow \`${workflow}\` has ${steps} steps; a workflow has at most ${maxSteps}`,
  help: 'split it into several workflows, each started when the one before has completed',
}));

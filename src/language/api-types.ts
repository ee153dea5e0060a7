/**
 * Types of the language's public API (see index.ts). The API never throws for bad user input:
 * every problem comes back as diagnostics.
 */
import type { ModuleNode, Span } from './ast/nodes.js';
import type { Diagnostic } from './diagnostics/diagnostic.js';

export type Locale = 'en-US' | 'zh-CN' | 'de-DE';
export const SUPPORTED_LOCALES: readonly Locale[] = ['en-US', 'zh-CN', 'de-DE'];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ParseResult {
  /** null only when nothing usable could be parsed; otherwise a (possibly partial) tree. */
  module: ModuleNode | null;
  diagnostics: Diagnostic[];
}

export interface CompileOptions {
  /** Default 1,000,000 (docs/language.md §7). */
  stepBudget?: number;
  /**
   * Called at most once per program when building the generated (hot) form of an entry point
   * fails; that entry point keeps running as closures, with the same answers. Default: one
   * `console.warn` per program.
   */
  onTierUpFailure?: (failure: TierUpFailure) => void;
}

/** Why an entry point of a program stays in its closure form. */
export interface TierUpFailure {
  moduleName: string;
  functionName: string;
  error: unknown;
}

export interface CompileResult {
  program: CompiledProgram | null;
  diagnostics: Diagnostic[];
}

export interface ParameterInfo {
  name: string;
  /** The type as written in en-US, e.g. `List of Applicant`. */
  type: string;
}

export interface FunctionSignature {
  name: string;
  params: ParameterInfo[];
  returnType: string;
}

/** A step of a workflow: a `Bool` rule called with workflow parameters (by name), or an awaited signal. */
export type WorkflowStepInfo =
  | {
      name: string;
      kind: 'rule';
      rule: string;
      /** The workflow parameters passed, in the rule's parameter order. */
      args: string[];
      /** Run when a later step fails; null when none. */
      compensate: { rule: string; args: string[] } | null;
    }
  | { name: string; kind: 'await'; signal: string; /** Null: no time limit. */ withinMinutes: number | null };

export interface WorkflowSignature {
  name: string;
  params: ParameterInfo[];
  steps: WorkflowStepInfo[];
}

/** A checked, compiled module: immutable, reusable across evaluations and safe to cache. */
export interface CompiledProgram {
  readonly moduleName: string;
  readonly locale: Locale;
  readonly functions: readonly FunctionSignature[];
  readonly workflows: readonly WorkflowSignature[];
  readonly module: ModuleNode;
}

export interface EvaluateOptions {
  /** Overrides the program's step budget. */
  stepBudget?: number;
  /** Record the decision trace (off by default; free when off). */
  trace?: boolean;
  /**
   * Largest result, as compact UTF-8 JSON, in bytes; a larger one fails with PL4006 before it is
   * converted. Default 1 MiB (1,048,576).
   */
  maxResultBytes?: number;
  /**
   * Largest decision trace in bytes (values and texts exactly, plus 160 bytes per entry for its
   * keys and span); passing it stops the evaluation with PL4007. Default 1 MiB (1,048,576).
   */
  maxTraceBytes?: number;
}

/** One condition evaluated, in evaluation order. */
export interface TraceEntry {
  /** Which construct decided: `if` branch, `match` case, `call` into a rule, `return`, or `fail`. */
  kind: 'if' | 'match' | 'call' | 'return' | 'fail';
  rule: string;
  /** Source text of the condition / subject / returned expression as written. */
  text: string;
  span: Span;
  /** The condition's or subject's value (Bool for `if`), or the returned value. */
  value: JsonValue;
  /** For `if`: `then`, `otherwise if #n`, `otherwise` or `none`; for `match`: the matched case or `otherwise`/`none`. */
  branch?: string;
}

export type EvaluationResult =
  | { ok: true; value: JsonValue; trace?: TraceEntry[] }
  | { ok: false; diagnostics: Diagnostic[]; trace?: TraceEntry[] };

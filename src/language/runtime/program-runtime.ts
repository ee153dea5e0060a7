/**
 * The executable part of a compiled program, kept on the CompiledProgram under a symbol (so the
 * public object stays plain). Compiled code is a tree of closures: an expression is an `Eval`, a
 * statement an `Exec` that returns `undefined` to continue or the value of a `Return`.
 */
import type { CompiledProgram } from '../api-types.js';
import type { ArgumentsConversion } from './input-conversion.js';
import type { Meter } from './meter.js';
import type { ResultConversion } from './result-conversion.js';
import type { TraceSink } from './trace-sink.js';

export type Eval = () => unknown;
export type Exec = () => unknown;

/**
 * One rule of a closure tree. The call graph is acyclic, so a rule is never active twice at
 * once: one frame per rule, allocated at compile time, holds its variables by slot.
 */
export interface RuleCode {
  readonly frame: unknown[];
  readonly body: Exec;
}


export interface CodeTree {
  readonly rules: ReadonlyMap<string, RuleCode>;
  /** Only the traced tree has a sink; the plain tree contains no tracing code at all. */
  readonly sink: TraceSink | null;
}

export interface EntryPoint {
  readonly name: string;
  args: ArgumentsConversion;
  toJson: ResultConversion;
  /** This rule in the plain tree, to skip a lookup on the common path. */
  plain: RuleCode;
  /**
   * Once hot: converts the context, runs the generated rule and converts the result in one
   * function; returns INVALID (input-conversion.ts) when the context is not valid.
   */
  fast: ((context: unknown) => unknown) | null;
  /** Untraced evaluations so far; at the program's threshold the entry point tiers up. */
  runs: number;
}

export interface ProgramRuntime {
  readonly moduleName: string;
  readonly entries: ReadonlyMap<string, EntryPoint>;
  readonly stepBudget: number;
  readonly meter: Meter;
  readonly plain: CodeTree;
  /** The traced tree, compiled on first use. */
  traced(): CodeTree;
  /** The entry point evaluated last: repeated evaluations of one function skip the lookup. */
  last: EntryPoint | null;
  /** After this many untraced evaluations an entry point tiers up (see closure-template.ts). */
  readonly tierUpAfter: number;
  /** Rebuilds the entry point and the rules it reaches with a fresh closure copy per node. */
  tierUp(entry: EntryPoint): void;
}

export const PROGRAM_RUNTIME: unique symbol = Symbol('program runtime');

export interface InternalProgram extends CompiledProgram {
  readonly [PROGRAM_RUNTIME]: ProgramRuntime;
}

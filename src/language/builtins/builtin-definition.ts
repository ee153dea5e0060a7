/**
 * What one built-in function is: its type rule, its closure implementation and its generated-tier
 * code, declared together (as cel-go declares a function with its overloads and implementation)
 * so the checker, the closure compiler and the code generator cannot disagree about it.
 */
import type { Span } from '../ast/nodes.js';
import type { EnumInfo } from '../checker/checked-module.js';
import type { Type, ValueType } from '../checker/types.js';
import type { Eval } from '../runtime/program-runtime.js';
import type { ArgumentChecks } from './argument-checks.js';

/** A call as the closure compiler sees it: compiled arguments and their static types. */
export interface ClosureCall {
  readonly args: readonly Eval[];
  readonly argTypes: readonly ValueType[];
  readonly span: Span;
  readonly enums: ReadonlyMap<string, EnumInfo>;
}

/** A call as the code generator sees it: argument expressions as generated source. */
export interface GeneratedCall {
  readonly args: readonly string[];
  readonly argTypes: readonly ValueType[];
  /** The call's span as a constant-pool reference (`s[…]`). */
  readonly span: string;
  /** A value as a constant-pool reference (`k[…]`): no value is ever printed into the source. */
  constant(value: unknown): string;
  readonly enums: ReadonlyMap<string, EnumInfo>;
}

/** A helper function that generated code calls by name. */
export type GeneratedHelper = (...args: never[]) => unknown;

export interface BuiltinDefinition {
  /** Allowed argument counts: [min, max]. */
  readonly arity: readonly [number, number];
  /** The call's type when the arguments fit, after reporting any mismatch (arity already checked). */
  check(args: ArgumentChecks): Type;
  closure(call: ClosureCall): Eval;
  /** An expression of the generated tier; it may call only `helpers` of the definitions. */
  generated(call: GeneratedCall): string;
  /** Helpers the generated expression calls, by the name it uses. */
  readonly helpers: Readonly<Record<string, GeneratedHelper>>;
}

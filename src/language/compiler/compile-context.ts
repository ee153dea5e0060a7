/**
 * What compiling one rule needs: the checker's findings, the rules already compiled (callees come
 * first), the rule's own frame, the shared step meter, and — only when building the traced tree —
 * a trace recorder. Nothing here is consulted at run time.
 */
import type { Expr } from '../ast/nodes.js';
import type { CheckedModule, RuleInfo } from '../checker/checked-module.js';
import type { ValueType } from '../checker/types.js';
import type { TypeEnvironment } from '../runtime/type-environment.js';
import type { Meter } from '../runtime/meter.js';
import type { RuleCode } from '../runtime/program-runtime.js';
import type { TraceRecorder } from './trace-recorder.js';

export interface CompileContext {
  readonly checked: CheckedModule;
  readonly env: TypeEnvironment;
  readonly meter: Meter;
  /** Rules compiled so far, in call order. */
  readonly compiled: ReadonlyMap<string, RuleCode>;
  readonly trace: TraceRecorder | null;
  readonly rule: RuleInfo;
  readonly frame: unknown[];
}

export function typeOf(ctx: CompileContext, expr: Expr): ValueType {
  const type = ctx.checked.types.get(expr.id);
  if (type === undefined) throw new Error(`no type recorded for expression ${expr.id}`);
  return type;
}

export function resolutionOf(ctx: CompileContext, id: number) {
  const resolution = ctx.checked.resolutions.get(id);
  if (resolution === undefined) throw new Error(`no resolution recorded for node ${id}`);
  return resolution;
}

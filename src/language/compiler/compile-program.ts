/**
 * A checked module → a CompiledProgram. The plain closure tree is built now; the traced tree
 * only when a traced evaluation first asks for it, so programs that are never traced never pay
 * for it, and untraced evaluations never run tracing code.
 */
import type { CompiledProgram, FunctionSignature, Locale } from '../api-types.js';
import type { CheckedModule } from '../checker/checked-module.js';
import { typeToString } from '../checker/types.js';
import { createArgumentsConversion, type TypeEnvironment } from '../runtime/input-conversion.js';
import { createMeter, DEFAULT_STEP_BUDGET, type Meter } from '../runtime/meter.js';
import { createOutputConversion } from '../runtime/output-conversion.js';
import {
  PROGRAM_RUNTIME,
  type CodeTree,
  type EntryPoint,
  type InternalProgram,
  type ProgramRuntime,
  type RuleCode,
} from '../runtime/program-runtime.js';
import { validateStepBudget } from '../runtime/evaluate.js';
import type { CompileContext } from './compile-context.js';
import { compileBlock } from './statement-compiler.js';
import { TraceRecorder } from './trace-recorder.js';

export interface ProgramOptions {
  /** The source text the module was parsed from; trace entries quote it. */
  source: string;
  locale: Locale;
  stepBudget?: number;
}

function buildTree(checked: CheckedModule, env: TypeEnvironment, meter: Meter, trace: TraceRecorder | null): CodeTree {
  const compiled = new Map<string, RuleCode>();
  for (const name of checked.callOrder) {
    const rule = checked.rules.get(name)!;
    const frame: unknown[] = [];
    for (let i = 0; i < rule.slotCount; i++) frame.push(undefined);
    const ctx: CompileContext = { checked, env, meter, compiled, trace, rule, frame };
    compiled.set(name, { frame, body: compileBlock(ctx, rule.decl.body) });
  }
  return { rules: compiled, sink: trace?.sink ?? null };
}

export function compileProgram(checked: CheckedModule, options: ProgramOptions): CompiledProgram {
  const env: TypeEnvironment = { records: checked.records, enums: checked.enums };
  const meter = createMeter();
  const stepBudget = options.stepBudget === undefined ? DEFAULT_STEP_BUDGET : validateStepBudget(options.stepBudget);
  const plain = buildTree(checked, env, meter, null);
  let traced: CodeTree | null = null;

  const entries = new Map<string, EntryPoint>();
  const functions: FunctionSignature[] = [];
  for (const rule of checked.rules.values()) {
    entries.set(rule.name, {
      name: rule.name,
      args: createArgumentsConversion(rule.name, rule.params, env),
      toJson: createOutputConversion(rule.returnType, env),
      plain: plain.rules.get(rule.name)!,
    });
    functions.push({
      name: rule.name,
      params: rule.params.map((p) => ({ name: p.name, type: typeToString(p.type) })),
      returnType: typeToString(rule.returnType),
    });
  }

  const runtime: ProgramRuntime = {
    moduleName: checked.moduleName,
    entries,
    stepBudget,
    meter,
    plain,
    last: null,
    traced() {
      traced ??= buildTree(checked, env, meter, new TraceRecorder({ entries: [] }, options.source, env));
      return traced;
    },
  };
  const program: InternalProgram = {
    moduleName: checked.moduleName,
    locale: options.locale,
    functions,
    module: checked.module,
    [PROGRAM_RUNTIME]: runtime,
  };
  return program;
}

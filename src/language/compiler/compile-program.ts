/**
 * A checked module → a CompiledProgram. Three forms of a program's code can exist:
 * - the closure tree, built now: cheap to build, and what most entry points ever run;
 * - per hot entry point, after `tierUpAfter` evaluations of it, generated functions for the rules
 *   it reaches (see code-generator.ts), with input and output conversions of their own;
 * - the traced closure tree, built when a traced evaluation first asks for it. Untraced
 *   evaluations never run tracing code.
 */
import type { CompiledProgram, FunctionSignature, Locale, TierUpFailure, WorkflowSignature, WorkflowStepInfo } from '../api-types.js';
import type { CallExpr, NameExpr } from '../ast/nodes.js';
import type { CheckedModule, WorkflowInfo } from '../checker/checked-module.js';
import { durationMinutes } from '../checker/workflow-checker.js';
import { typeToString } from '../checker/types.js';
import { freshTemplates } from '../runtime/closure-template.js';
import { validateStepBudget } from '../runtime/evaluate.js';
import { createArgumentsConversion } from '../runtime/input-conversion.js';
import type { TypeEnvironment } from '../runtime/type-environment.js';
import { createMeter, DEFAULT_STEP_BUDGET, type Meter } from '../runtime/meter.js';
import { createResultConversion } from '../runtime/result-conversion.js';
import { TraceSink } from '../runtime/trace-sink.js';
import { propertyKey } from '../runtime/property-key.js';
import {
  PROGRAM_RUNTIME,
  type CodeTree,
  type EntryPoint,
  type InternalProgram,
  type ProgramRuntime,
  type RuleCode,
} from '../runtime/program-runtime.js';
import { generateRules, instantiateRules } from './code-generator.js';
import { createGeneratedHelpers } from './generated-helpers.js';
import type { CompileContext } from './compile-context.js';
import { compileBlock } from './statement-compiler.js';
import { TraceRecorder } from './trace-recorder.js';

/** Evaluations of one entry point after which its rules run as generated functions. */
export const DEFAULT_TIER_UP_AFTER = 1000;

export interface ProgramOptions {
  /** The source text the module was parsed from; trace entries quote it. */
  source: string;
  locale: Locale;
  stepBudget?: number;
  /** Evaluations before an entry point tiers up; 1 tiers up at the first evaluation. */
  tierUpAfter?: number;
  /** See CompileOptions; default one `console.warn` per program. */
  onTierUpFailure?: (failure: TierUpFailure) => void;
}

function warnTierUpFailure({ moduleName, functionName, error }: TierUpFailure): void {
  console.warn(`policy module \`${moduleName}\`: \`${functionName}\` keeps running as closures, generating its fast form failed:`, error);
}

interface TreeOptions {
  readonly checked: CheckedModule;
  readonly env: TypeEnvironment;
  readonly meter: Meter;
  readonly trace: TraceRecorder | null;
}

/** Compiles the given rules (all when `only` is null), callees before callers. */
function buildTree(options: TreeOptions, only: ReadonlySet<string> | null): CodeTree {
  const { checked, env, meter, trace } = options;
  const compiled = new Map<string, RuleCode>();
  for (const name of checked.callOrder) {
    if (only !== null && !only.has(name)) continue;
    const rule = checked.rules.get(name)!;
    const frame: unknown[] = [];
    for (let i = 0; i < rule.slotCount; i++) frame.push(undefined);
    const ctx: CompileContext = { checked, env, meter, compiled, trace, rule, frame };
    compiled.set(name, { frame, body: compileBlock(ctx, rule.decl.body) });
  }
  return { rules: compiled, sink: trace?.sink ?? null };
}

function reachableFrom(checked: CheckedModule, name: string): Set<string> {
  const reached = new Set<string>();
  const visit = (rule: string): void => {
    if (reached.has(rule)) return;
    reached.add(rule);
    for (const callee of checked.callees.get(rule) ?? []) visit(callee);
  };
  visit(name);
  return reached;
}

export function compileProgram(checked: CheckedModule, options: ProgramOptions): CompiledProgram {
  const env: TypeEnvironment = { records: checked.records, enums: checked.enums };
  const meter = createMeter();
  const stepBudget = options.stepBudget === undefined ? DEFAULT_STEP_BUDGET : validateStepBudget(options.stepBudget);
  const tierUpAfter = options.tierUpAfter ?? DEFAULT_TIER_UP_AFTER;
  const plain = buildTree({ checked, env, meter, trace: null }, null);
  let traced: CodeTree | null = null;
  let tierUpFailureReported = false;

  const entries = new Map<string, EntryPoint>();
  const functions: FunctionSignature[] = [];
  for (const rule of checked.rules.values()) {
    entries.set(rule.name, {
      name: propertyKey(rule.name),
      args: createArgumentsConversion(rule.name, rule.params, env),
      toJson: createResultConversion(rule.returnType, env),
      plain: plain.rules.get(rule.name)!,
      fast: null,
      runs: 0,
    });
    functions.push({
      name: rule.name,
      params: rule.params.map((p) => ({ name: p.name, type: typeToString(p.type) })),
      returnType: typeToString(rule.returnType),
    });
  }

  const workflows = [...checked.workflows.values()].map(workflowSignature);

  const runtime: ProgramRuntime = {
    moduleName: checked.moduleName,
    entries,
    stepBudget,
    meter,
    plain,
    last: null,
    tierUpAfter,
    traced() {
      traced ??= buildTree(
        { checked, env, meter, trace: new TraceRecorder(new TraceSink(), options.source, env) },
        null,
      );
      return traced;
    },
    tierUp(entry) {
      // Tiering up is an optimisation: when it fails (an engine limit, a defect), the entry point
      // keeps its closures for good and answers exactly as before.
      try {
        const reachable = reachableFrom(checked, entry.name);
        const rules = checked.callOrder.filter((name) => reachable.has(name));
        const generated = instantiateRules(generateRules(checked, rules, entry.name), createGeneratedHelpers(meter), meter);
        const run = generated.rules.get(entry.name)!;
        const rule = checked.rules.get(entry.name)!;
        const frame: unknown[] = [];
        for (let i = 0; i < rule.params.length; i++) frame.push(undefined);
        const args = createArgumentsConversion(rule.name, rule.params, env, freshTemplates);
        const toJson = createResultConversion(rule.returnType, env, freshTemplates);
        entry.fast = generated.entry;
        entry.plain = { frame, body: () => run(frame) };
        entry.args = args;
        entry.toJson = toJson;
      } catch (error) {
        if (tierUpFailureReported) return;
        tierUpFailureReported = true;
        (options.onTierUpFailure ?? warnTierUpFailure)({ moduleName: checked.moduleName, functionName: entry.name, error });
      }
    },
  };
  const program: InternalProgram = {
    moduleName: checked.moduleName,
    locale: options.locale,
    functions,
    workflows,
    module: checked.module,
    [PROGRAM_RUNTIME]: runtime,
  };
  return program;
}

/** What a workflow runner needs of a checked workflow: its parameters and its steps, in order. */
function workflowSignature(workflow: WorkflowInfo): WorkflowSignature {
  const names = (call: CallExpr) => call.args.map((arg) => (arg as NameExpr).name);
  return {
    name: workflow.name,
    params: workflow.params.map((p) => ({ name: p.name, type: typeToString(p.type) })),
    steps: workflow.decl.steps.map((step): WorkflowStepInfo => {
      const action = step.action;
      if (action.kind === 'AwaitStep') {
        const within = action.within;
        return { name: step.name, kind: 'await', signal: action.signal.value, withinMinutes: within === null ? null : durationMinutes(within) };
      }
      const compensate = action.compensate === null ? null : { rule: action.compensate.callee, args: names(action.compensate) };
      return { name: step.name, kind: 'rule', rule: action.call.callee, args: names(action.call), compensate };
    }),
  };
}

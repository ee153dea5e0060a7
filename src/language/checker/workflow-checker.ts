/**
 * Workflows (docs/language.md, workflows): each step calls a `Bool` rule of the module with the
 * workflow's parameters, passed by name, or awaits a named signal; step names are unique.
 */
import type { CallExpr, DurationNode, DurationUnit, WorkflowDecl } from '../ast/nodes.js';
import {
  AwaitTooLong,
  DuplicateStep,
  InvalidAwait,
  StepArgumentNotParameter,
  StepRuleNotBool,
  TooManySteps,
  TypeMismatch,
  UnknownCallee,
  WrongArgumentCount,
} from '../diagnostics/index.js';
import type { Declarations, DeclaredWorkflow } from './declarations.js';
import type { Reporter } from './reporter.js';
import { assignable, BOOL, isErrorType, typeToString, type Type } from './types.js';

/** Longest signal name: it travels in requests and event payloads. */
export const MAX_SIGNAL_LENGTH = 128;

/**
 * Most steps of one workflow. A step adds at most three events to the log (awaited, answered,
 * compensated), so this bounds every log the service stores and replays.
 */
export const MAX_WORKFLOW_STEPS = 2000;

/** Minutes in one unit of a time limit. */
export const DURATION_MINUTES: Readonly<Record<DurationUnit, number>> = { minutes: 1, hours: 60, days: 1440 };

/** Longest time limit of an awaited signal, 365 days: its deadline must be a date the service can store and schedule. */
export const MAX_WITHIN_MINUTES = 365 * DURATION_MINUTES.days;

/** A time limit in minutes. */
export function durationMinutes(duration: DurationNode): number {
  return duration.amount * DURATION_MINUTES[duration.unit];
}

export function checkWorkflows(declarations: Declarations, reporter: Reporter): void {
  for (const workflow of declarations.workflows.values()) checkWorkflow(workflow, declarations, reporter);
}

function checkWorkflow(workflow: DeclaredWorkflow, declarations: Declarations, reporter: Reporter): void {
  const decl: WorkflowDecl = workflow.decl;
  const params = new Map<string, Type>(workflow.params.map((p) => [p.name, p.type]));
  const stepLines = new Map<string, number>();
  if (decl.steps.length > MAX_WORKFLOW_STEPS) {
    reporter.report(TooManySteps(decl.name, decl.steps.length, MAX_WORKFLOW_STEPS), decl.steps[MAX_WORKFLOW_STEPS]!.span);
  }
  for (const step of decl.steps) {
    const earlier = stepLines.get(step.name);
    if (earlier !== undefined) {
      reporter.report(DuplicateStep(step.name, decl.name, earlier), step.span);
    } else {
      stepLines.set(step.name, step.span.line);
    }
    const action = step.action;
    if (action.kind === 'RuleStep') {
      checkStepCall(action.call, decl.name, params, declarations, reporter);
      if (action.compensate !== null) checkStepCall(action.compensate, decl.name, params, declarations, reporter);
      continue;
    }
    const signal = action.signal.value;
    if (signal.trim() === '' || signal.length > MAX_SIGNAL_LENGTH) {
      reporter.report(InvalidAwait.signalName(MAX_SIGNAL_LENGTH), action.signal.span);
    }
    if (action.within !== null && (!Number.isSafeInteger(action.within.amount) || action.within.amount < 1)) {
      reporter.report(InvalidAwait.timeLimit(), action.within.span);
    } else if (action.within !== null && durationMinutes(action.within) > MAX_WITHIN_MINUTES) {
      reporter.report(AwaitTooLong(MAX_WITHIN_MINUTES, action.within.amount, action.within.unit), action.within.span);
    }
  }
}

function checkStepCall(
  call: CallExpr,
  workflowName: string,
  params: ReadonlyMap<string, Type>,
  declarations: Declarations,
  reporter: Reporter,
): void {
  const rule = declarations.rules.get(call.callee);
  if (rule === undefined) {
    const problem = declarations.workflows.has(call.callee) ? UnknownCallee.workflow(call.callee) : UnknownCallee.unknownRule(call.callee, declarations.rules.keys());
    reporter.report(problem, call.span);
    return;
  }
  if (!isErrorType(rule.returnType) && !assignable(rule.returnType, BOOL)) {
    reporter.report(StepRuleNotBool(call.callee, typeToString(rule.returnType)), call.span);
  }
  if (call.args.length !== rule.params.length) {
    reporter.report(WrongArgumentCount.rule(call.callee, rule.params.length, call.args.length), call.span);
    return;
  }
  call.args.forEach((arg, i) => {
    const expected = rule.params[i]!;
    const given = arg.kind === 'Name' ? params.get(arg.name) : undefined;
    if (arg.kind !== 'Name' || given === undefined) {
      reporter.report(StepArgumentNotParameter(i + 1, call.callee, workflowName, [...params.keys()]), arg.span);
      return;
    }
    if (!isErrorType(given) && !isErrorType(expected.type) && !assignable(given, expected.type)) {
      reporter.report(TypeMismatch.workflowArgument(expected.name, call.callee, typeToString(expected.type), arg.name, typeToString(given)), arg.span);
    }
  });
}

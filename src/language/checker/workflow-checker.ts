/**
 * Workflows (docs/language.md, workflows): each step calls a `Bool` rule of the module with the
 * workflow's parameters, passed by name, or awaits a named signal; step names are unique.
 */
import type { CallExpr, DurationNode, DurationUnit, WorkflowDecl } from '../ast/nodes.js';
import { didYouMean } from '../diagnostics/index.js';
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
    reporter.error(
      'PL4009',
      `workflow \`${decl.name}\` has ${decl.steps.length} steps; a workflow has at most ${MAX_WORKFLOW_STEPS}`,
      decl.steps[MAX_WORKFLOW_STEPS]!.span,
      'split it into several workflows, each started when the one before has completed',
    );
  }
  for (const step of decl.steps) {
    const earlier = stepLines.get(step.name);
    if (earlier !== undefined) {
      reporter.error('PL2025', `step \`${step.name}\` is already a step of workflow \`${decl.name}\` (line ${earlier})`, step.span);
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
      reporter.error('PL2028', `a signal name must be 1 to ${MAX_SIGNAL_LENGTH} characters, not blank`, action.signal.span);
    }
    if (action.within !== null && (!Number.isSafeInteger(action.within.amount) || action.within.amount < 1)) {
      reporter.error('PL2028', 'the time limit of an awaited signal must be at least 1', action.within.span);
    } else if (action.within !== null && durationMinutes(action.within) > MAX_WITHIN_MINUTES) {
      reporter.error(
        'PL4008',
        `the time limit of an awaited signal is at most 365 days (${MAX_WITHIN_MINUTES} minutes), not ${action.within.amount} ${action.within.unit}`,
        action.within.span,
        'leave out `within` for a signal that may take any time, or shorten the limit',
      );
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
    const what = declarations.workflows.has(call.callee) ? `\`${call.callee}\` is a workflow, not a rule` : `unknown rule \`${call.callee}\`${didYouMean(call.callee, declarations.rules.keys())}`;
    reporter.error('PL2012', what, call.span);
    return;
  }
  if (!isErrorType(rule.returnType) && !assignable(rule.returnType, BOOL)) {
    reporter.error('PL2026', `rule \`${call.callee}\` produces \`${typeToString(rule.returnType)}\`; a step needs a rule that produces \`Bool\``, call.span);
  }
  if (call.args.length !== rule.params.length) {
    const n = rule.params.length;
    reporter.error('PL2013', `rule \`${call.callee}\` takes ${n} argument${n === 1 ? '' : 's'}, got ${call.args.length}`, call.span);
    return;
  }
  call.args.forEach((arg, i) => {
    const expected = rule.params[i]!;
    const given = arg.kind === 'Name' ? params.get(arg.name) : undefined;
    if (arg.kind !== 'Name' || given === undefined) {
      const names = [...params.keys()].map((name) => `\`${name}\``).join(', ');
      reporter.error(
        'PL2027',
        `argument ${i + 1} of \`${call.callee}\` must name a parameter of workflow \`${workflowName}\` (${names || 'it has none'})`,
        arg.span,
      );
      return;
    }
    if (!isErrorType(given) && !isErrorType(expected.type) && !assignable(given, expected.type)) {
      reporter.error(
        'PL2006',
        `parameter \`${expected.name}\` of \`${call.callee}\` must be \`${typeToString(expected.type)}\`, but \`${arg.name}\` is \`${typeToString(given)}\``,
        arg.span,
      );
    }
  });
}

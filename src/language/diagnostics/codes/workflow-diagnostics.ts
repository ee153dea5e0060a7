/** PL2025–PL2028: workflow declarations whose steps cannot run as written. */
import { defineDiagnostic } from '../define-diagnostic.js';

export const DuplicateStep = defineDiagnostic('PL2025', 'two steps of a workflow have the same name', (step: string, workflow: string, line: number) => ({
  message: `step \`${step}\` is already a step of workflow \`${workflow}\` (line ${line})`,
  help: 'give each step of a workflow its own name',
}));

export const StepRuleNotBool = defineDiagnostic('PL2026', 'a workflow step or compensation must call a rule of the module that produces `Bool`', (rule: string, produces: string) => ({
  message: `rule \`${rule}\` produces \`${produces}\`; a step needs a rule that produces \`Bool\``,
  help: 'call a rule that produces `Bool`: whether the step succeeded',
}));

/** `parameters` are the workflow's parameter names; `position` counts from 1. */
export const StepArgumentNotParameter = defineDiagnostic(
  'PL2027',
  "a workflow step passes the workflow's parameters, by name, as the rule's arguments",
  (position: number, rule: string, workflow: string, parameters: readonly string[]) => ({
    message: `argument ${position} of \`${rule}\` must name a parameter of workflow \`${workflow}\` (${parameters.map((name) => `\`${name}\``).join(', ') || 'it has none'})`,
    help: 'compute the value inside the rule, from the parameters passed to it',
  }),
);

export const InvalidAwait = defineDiagnostic('PL2028', 'an awaited signal needs a name and a time limit of at least 1', {
  signalName: (maxLength: number) => ({
    message: `a signal name must be 1 to ${maxLength} characters, not blank`,
    help: 'name the signal in the quotes, like `"approval"`',
  }),
  timeLimit: () => ({ message: 'the time limit of an awaited signal must be at least 1', help: 'leave out `within` for a signal that may take any time' }),
});

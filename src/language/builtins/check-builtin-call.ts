/**
 * The type of a built-in call: the argument count against the definition's arity, then its type
 * rule. A rule of the module with the same name takes precedence (the checker decides that), so
 * adding a built-in never breaks a module.
 */
import type { CallExpr } from '../ast/nodes.js';
import type { Reporter } from '../checker/reporter.js';
import { ERROR, type Type } from '../checker/types.js';
import { WrongArgumentCount } from '../diagnostics/index.js';
import { ArgumentChecks } from './argument-checks.js';
import type { BuiltinName } from './builtin-names.js';
import { BUILTINS } from './builtin-table.js';

function describeArity([min, max]: readonly [number, number]): string {
  if (max === Infinity) return `at least ${min} argument${min === 1 ? '' : 's'}`;
  if (min === max) return `${min} argument${min === 1 ? '' : 's'}`;
  return `${min} or ${max} arguments`;
}

export function checkBuiltinCall(name: BuiltinName, call: CallExpr, argTypes: readonly Type[], reporter: Reporter): Type {
  const definition = BUILTINS[name];
  const [min, max] = definition.arity;
  if (argTypes.length < min || argTypes.length > max) {
    reporter.report(WrongArgumentCount.builtin(name, describeArity(definition.arity), argTypes.length), call.span);
    return ERROR;
  }
  return definition.check(new ArgumentChecks(name, call, argTypes, reporter));
}

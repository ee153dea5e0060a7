/**
 * Every built-in function, one entry each. The checker, the closure compiler and the code
 * generator read their type rule, closure and generated code from here.
 */
import type { BuiltinDefinition, GeneratedHelper } from './builtin-definition.js';
import type { BuiltinName } from './builtin-names.js';
import { append, count, length, sum } from './list-builtins.js';
import { abs, ceil, floor, max, min, power, round, sqrt } from './numeric-builtins.js';
import { endsWith, join, lower, startsWith, text, trim, upper } from './text-builtins.js';

export const BUILTINS: Readonly<Record<BuiltinName, BuiltinDefinition>> = {
  min,
  max,
  abs,
  round,
  floor,
  ceil,
  power,
  sqrt,
  length,
  sum,
  count,
  append,
  lower,
  upper,
  trim,
  startsWith,
  endsWith,
  text,
  join,
};

/** The generated-tier helpers of all built-ins by name; a name means one function. */
export const BUILTIN_HELPERS: Readonly<Record<string, GeneratedHelper>> = (() => {
  const helpers: Record<string, GeneratedHelper> = {};
  for (const definition of Object.values(BUILTINS)) {
    for (const [name, helper] of Object.entries(definition.helpers)) {
      if (helpers[name] !== undefined && helpers[name] !== helper) throw new Error(`two built-ins define the helper \`${name}\``);
      helpers[name] = helper;
    }
  }
  return helpers;
})();

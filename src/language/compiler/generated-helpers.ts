/**
 * Everything generated code may call by name: the operator and input helpers of the runtime and
 * the helpers of the built-in functions.
 */
import { BUILTIN_HELPERS } from '../builtins/index.js';
import { CODE_HELPER_NAMES, createCodeHelpers } from '../runtime/code-helpers.js';
import type { Meter } from '../runtime/meter.js';

export type GeneratedHelpers = Readonly<Record<string, unknown>>;

export function createGeneratedHelpers(meter: Meter): GeneratedHelpers {
  return { ...createCodeHelpers(meter), ...BUILTIN_HELPERS };
}

/** The names the generator's safety check allows and the generated prelude binds. */
export const GENERATED_HELPER_NAMES: readonly string[] = [...CODE_HELPER_NAMES, ...Object.keys(BUILTIN_HELPERS)];

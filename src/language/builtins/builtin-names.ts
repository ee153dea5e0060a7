/**
 * The names of the built-in functions (docs/language.md §5): the same English names in every locale.
 * A leaf module, so the parser and formatter can tell a built-in call without the type rules.
 */
export const BUILTIN_NAMES = [
  'min',
  'max',
  'abs',
  'round',
  'floor',
  'ceil',
  'power',
  'sqrt',
  'length',
  'sum',
  'count',
  'append',
  'lower',
  'upper',
  'trim',
  'startsWith',
  'endsWith',
  'text',
  'join',
] as const;

export type BuiltinName = (typeof BUILTIN_NAMES)[number];

const BUILTIN_SET: ReadonlySet<string> = new Set(BUILTIN_NAMES);

export function isBuiltinName(name: string): name is BuiltinName {
  return BUILTIN_SET.has(name);
}

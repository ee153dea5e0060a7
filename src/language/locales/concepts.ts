/** Comparison keywords (docs/language.md §5, level 4); `betweenAnd` is the `and` of `between a and b`. */
export const COMPARISON_CONCEPTS = ['eq', 'ne', 'lt', 'gt', 'ge', 'le', 'between', 'betweenAnd', 'oneOf', 'contains'] as const;

/** Arithmetic keywords (docs/language.md §5, levels 5 and 6). */
export const ARITHMETIC_CONCEPTS = ['plus', 'minus', 'times', 'dividedBy', 'modulo'] as const;

/**
 * The locale-free meaning of every keyword. A locale spells each concept with one or more words
 * (see the locale tables); the parser and formatter only ever speak in concepts.
 */
export const CONCEPTS = [
  'module',
  'define',
  'has',
  'as',
  'enumOneOf',
  'rule',
  'given',
  'produce',
  'let',
  'be',
  'return',
  'if',
  'elseIf',
  'else',
  'match',
  'when',
  'forEach',
  'in',
  'inEnd',
  'fail',
  'with',
  'setTo',
  'and',
  'or',
  'not',
  ...COMPARISON_CONCEPTS,
  ...ARITHMETIC_CONCEPTS,
  'true',
  'false',
  'int',
  'float',
  'text',
  'bool',
  'listOf',
  'workflow',
  'step',
  'compensateWith',
  'await',
] as const;

export type Concept = (typeof CONCEPTS)[number];

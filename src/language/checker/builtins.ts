/**
 * The built-in functions (LANGUAGE.md §5): same English names in every locale. A rule of the
 * module with the same name takes precedence, so adding a built-in never breaks a module.
 */
import type { CallExpr } from '../ast/nodes.js';
import type { Reporter } from './reporter.js';
import { assignable, BOOL, ERROR, FLOAT, INT, listOf, prune, TEXT, type Type, typeToString } from './types.js';

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

/** Allowed argument counts: [min, max]. */
const ARITY: Record<BuiltinName, readonly [number, number]> = {
  min: [1, Infinity],
  max: [1, Infinity],
  abs: [1, 1],
  round: [1, 2],
  floor: [1, 1],
  ceil: [1, 1],
  power: [2, 2],
  sqrt: [1, 1],
  length: [1, 1],
  sum: [1, 1],
  count: [1, 1],
  append: [2, 2],
  lower: [1, 1],
  upper: [1, 1],
  trim: [1, 1],
  startsWith: [2, 2],
  endsWith: [2, 2],
  text: [1, 1],
  join: [2, 2],
};

function describeArity(name: BuiltinName): string {
  const [min, max] = ARITY[name];
  if (max === Infinity) return `at least ${min} argument${min === 1 ? '' : 's'}`;
  if (min === max) return `${min} argument${min === 1 ? '' : 's'}`;
  return `${min} or ${max} arguments`;
}

/**
 * Checks a call of a built-in whose arguments already have types; returns the call's type.
 */
export function checkBuiltinCall(name: BuiltinName, call: CallExpr, argTypes: readonly Type[], reporter: Reporter): Type {
  const [min, max] = ARITY[name];
  if (argTypes.length < min || argTypes.length > max) {
    reporter.error('PL2013', `\`${name}\` takes ${describeArity(name)}, got ${argTypes.length}`, call.span);
    return ERROR;
  }
  const args = call.args;
  const mismatch = (index: number, wanted: string): Type => {
    reporter.error(
      'PL2006',
      `argument ${index + 1} of \`${name}\` must be ${wanted}, found \`${typeToString(argTypes[index]!)}\``,
      args[index]!.span,
    );
    return ERROR;
  };
  const number = (index: number): Type | null => {
    const t = prune(argTypes[index]!);
    if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
    mismatch(index, 'a number (`Int` or `Float`)');
    return null;
  };
  const text = (index: number): boolean => {
    if (assignable(argTypes[index]!, TEXT)) return true;
    mismatch(index, '`Text`');
    return false;
  };
  /** The element type of a list argument, or null after reporting. */
  const list = (index: number): Type | null => {
    const t = prune(argTypes[index]!);
    if (t.kind === 'List') return t.element;
    if (t.kind === 'Error') return ERROR;
    mismatch(index, 'a list');
    return null;
  };

  switch (name) {
    case 'min':
    case 'max': {
      let allInt = true;
      let failed = false;
      for (let i = 0; i < argTypes.length; i++) {
        const t = number(i);
        if (t === null || t.kind === 'Error') failed = true;
        else if (t.kind !== 'Int') allInt = false;
      }
      return failed ? ERROR : allInt ? INT : FLOAT;
    }
    case 'abs': {
      const t = number(0);
      return t ?? ERROR;
    }
    case 'round': {
      const ok = number(0) !== null;
      if (argTypes.length === 2) {
        if (!assignable(argTypes[1]!, INT)) mismatch(1, 'an `Int` (the number of decimal digits)');
        return ok ? FLOAT : ERROR;
      }
      return ok ? INT : ERROR;
    }
    case 'floor':
    case 'ceil':
      return number(0) !== null ? INT : ERROR;
    case 'power': {
      const a = number(0);
      const b = number(1);
      return a && b ? FLOAT : ERROR;
    }
    case 'sqrt':
      return number(0) !== null ? FLOAT : ERROR;
    case 'length': {
      const t = prune(argTypes[0]!);
      if (t.kind === 'List' || t.kind === 'Text' || t.kind === 'Error') return INT;
      mismatch(0, 'a list or `Text`');
      return ERROR;
    }
    case 'count':
      return list(0) !== null ? INT : ERROR;
    case 'sum': {
      const element = list(0);
      if (element === null) return ERROR;
      const t = prune(element);
      if (t.kind === 'Hole') {
        reporter.error('PL2020', 'the element type of this empty list cannot be inferred here', args[0]!.span, 'give the list at least one element or bind it where its type is known');
        t.ref = ERROR;
        return ERROR;
      }
      if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
      return mismatch(0, 'a list of numbers');
    }
    case 'append': {
      const listType = argTypes[0]!;
      const element = list(0);
      if (element === null) return ERROR;
      if (!assignable(argTypes[1]!, element)) {
        reporter.error(
          'PL2006',
          `cannot append a \`${typeToString(argTypes[1]!)}\` value to a \`${typeToString(listType)}\``,
          args[1]!.span,
        );
        return ERROR;
      }
      return prune(listType);
    }
    case 'lower':
    case 'upper':
    case 'trim':
      return text(0) ? TEXT : ERROR;
    case 'startsWith':
    case 'endsWith': {
      const a = text(0);
      const b = text(1);
      return a && b ? BOOL : ERROR;
    }
    case 'text': {
      const t = prune(argTypes[0]!);
      if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Text' || t.kind === 'Bool' || t.kind === 'Enum' || t.kind === 'Error') {
        return TEXT;
      }
      return mismatch(0, 'an `Int`, `Float`, `Text`, `Bool` or enum value');
    }
    case 'join': {
      const ok = assignable(argTypes[0]!, listOf(TEXT));
      if (!ok) mismatch(0, 'a `List of Text`');
      const sep = text(1);
      return ok && sep ? TEXT : ERROR;
    }
  }
}

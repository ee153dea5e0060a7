/**
 * Built-ins on lists: `length` (also of a Text), `count`, `sum`, `append`. Each implementation is
 * one function that both tiers call. Lists are never mutated: `append` copies.
 */
import type { Span } from '../ast/nodes.js';
import { ERROR, INT, assignable, prune, typeToString } from '../checker/types.js';
import { TypeMismatch, UninferredEmptyList } from '../diagnostics/index.js';
import { checkFloat, checkInt, codePointLength } from '../runtime/numeric.js';
import type { BuiltinDefinition } from './builtin-definition.js';

const size = (list: unknown[]): number => list.length;

export const length: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => {
    const t = prune(args.types[0]!);
    if (t.kind === 'List' || t.kind === 'Text' || t.kind === 'Error') return INT;
    args.mismatch(0, 'a list or `Text`');
    return ERROR;
  },
  closure: ({ args: [a], argTypes }) =>
    argTypes[0]!.kind === 'Text' ? () => codePointLength(a!() as string) : () => size(a!() as unknown[]),
  generated: ({ args: [a], argTypes }) => (argTypes[0]!.kind === 'Text' ? `textLength(${a})` : `size(${a})`),
  helpers: { textLength: codePointLength, size },
};

export const count: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => (args.list(0) !== null ? INT : ERROR),
  closure: ({ args: [a] }) => () => size(a!() as unknown[]),
  generated: ({ args: [a] }) => `size(${a})`,
  helpers: { size },
};

function sumInts(items: number[], span: Span): number {
  let total = 0;
  for (let i = 0; i < items.length; i++) total = checkInt(total + items[i]!, span);
  return total;
}

function sumFloats(items: number[], span: Span): number {
  let total = 0;
  for (let i = 0; i < items.length; i++) total += items[i]!;
  return checkFloat(total, span);
}

export const sum: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => {
    const element = args.list(0);
    if (element === null) return ERROR;
    const t = prune(element);
    if (t.kind === 'Hole') {
      args.reporter.report(UninferredEmptyList.here(), args.call.args[0]!.span);
      t.ref = ERROR;
      return ERROR;
    }
    if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
    return args.mismatch(0, 'a list of numbers');
  },
  closure: ({ args: [a], argTypes, span }) => {
    const list = argTypes[0]!;
    if (list.kind === 'List' && list.element.kind === 'Int') return () => sumInts(a!() as number[], span);
    return () => sumFloats(a!() as number[], span);
  },
  generated: ({ args: [a], argTypes, span }) => {
    const list = argTypes[0]!;
    return list.kind === 'List' && list.element.kind === 'Int' ? `sumI(${a}, ${span})` : `sumF(${a}, ${span})`;
  },
  helpers: { sumI: sumInts, sumF: sumFloats },
};

function appended(items: unknown[], item: unknown): unknown[] {
  const out = items.slice();
  out.push(item);
  return out;
}

export const append: BuiltinDefinition = {
  arity: [2, 2],
  check: (args) => {
    const listType = args.types[0]!;
    const element = args.list(0);
    if (element === null) return ERROR;
    if (!assignable(args.types[1]!, element)) {
      args.reporter.report(TypeMismatch.append(typeToString(args.types[1]!), typeToString(listType)), args.call.args[1]!.span);
      return ERROR;
    }
    return prune(listType);
  },
  closure:
    ({ args: [a, b] }) =>
    () => {
      const items = a!() as unknown[];
      return appended(items, b!());
    },
  generated: ({ args: [a, b] }) => `append(${a}, ${b})`,
  helpers: { append: appended },
};

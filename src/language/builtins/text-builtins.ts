/**
 * Built-ins on Text: `lower`, `upper`, `trim`, `startsWith`, `endsWith`, `text`, `join`. Each
 * implementation is one function that both tiers call. Results that can grow are checked
 * against the Text length limit (PL4005).
 */
import type { Span } from '../ast/nodes.js';
import { BOOL, ERROR, TEXT, assignable, listOf, prune } from '../checker/types.js';
import { MAX_TEXT_LENGTH, checkTextLength, textTooLong } from '../runtime/numeric.js';
import { boolToText, createTextConversion, floatToText, intToText } from '../runtime/text-conversion.js';
import type { ArgumentChecks } from './argument-checks.js';
import type { BuiltinDefinition } from './builtin-definition.js';

const textOfText = (args: ArgumentChecks) => (args.text(0) ? TEXT : ERROR);

function textToText(name: string, convert: (text: string) => string): BuiltinDefinition {
  return {
    arity: [1, 1],
    check: textOfText,
    closure: ({ args: [a] }) => () => convert(a!() as string),
    generated: ({ args: [a] }) => `${name}(${a})`,
    helpers: { [name]: convert },
  };
}

export const trim = textToText('trim', (t: string): string => t.trim());

/**
 * Case mapping can make a text longer (`ß` → `SS`, `İ` → `i̇`), so the result is checked
 * against the limit. At most three characters per character: never more than the engine can hold.
 */
function caseMapping(name: string, convert: (text: string) => string): BuiltinDefinition {
  const mapped = (t: string, span: Span): string => checkTextLength(convert(t), span);
  return {
    arity: [1, 1],
    check: textOfText,
    closure: ({ args: [a], span }) => () => mapped(a!() as string, span),
    generated: ({ args: [a], span }) => `${name}(${a}, ${span})`,
    helpers: { [name]: mapped },
  };
}

export const lower = caseMapping('lower', (t: string): string => t.toLowerCase());
export const upper = caseMapping('upper', (t: string): string => t.toUpperCase());

function textTest(name: string, test: (text: string, part: string) => boolean): BuiltinDefinition {
  return {
    arity: [2, 2],
    check: (args) => {
      const a = args.text(0);
      const b = args.text(1);
      return a && b ? BOOL : ERROR;
    },
    closure:
      ({ args: [a, b] }) =>
      () => {
        const text = a!() as string;
        return test(text, b!() as string);
      },
    generated: ({ args: [a, b] }) => `${name}(${a}, ${b})`,
    helpers: { [name]: test },
  };
}

export const startsWith = textTest('startsWith', (t: string, p: string): boolean => t.startsWith(p));
export const endsWith = textTest('endsWith', (t: string, p: string): boolean => t.endsWith(p));

export const text: BuiltinDefinition = {
  arity: [1, 1],
  check: (args) => {
    const t = prune(args.types[0]!);
    if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Text' || t.kind === 'Bool' || t.kind === 'Enum' || t.kind === 'Error') {
      return TEXT;
    }
    return args.mismatch(0, 'an `Int`, `Float`, `Text`, `Bool` or enum value');
  },
  closure: ({ args: [a], argTypes, enums }) => {
    const convert = createTextConversion(argTypes[0]!, enums);
    return () => convert(a!());
  },
  generated: ({ args: [a], argTypes, constant, enums }) => {
    const type = argTypes[0]!;
    switch (type.kind) {
      case 'Int':
        return `intText(${a})`;
      case 'Float':
        return `floatText(${a})`;
      case 'Bool':
        return `boolText(${a})`;
      case 'Text':
        return a!;
      case 'Enum':
        return `${constant(enums.get(type.name)!.variants)}[${a}]`;
      default:
        throw new Error(`text() of a ${type.kind} value passed the checker`);
    }
  },
  helpers: { intText: intToText, floatText: floatToText, boolText: boolToText },
};

/**
 * The joined length is measured before the text is built: items of up to 2^24 characters each,
 * joined, would otherwise make a text of hundreds of millions of characters (or one longer than
 * the engine can hold at all) before the limit could be checked.
 */
function joined(items: string[], separator: string, span: Span): string {
  let length = items.length > 0 ? separator.length * (items.length - 1) : 0;
  for (let i = 0; i < items.length && length <= MAX_TEXT_LENGTH; i++) length += items[i]!.length;
  if (length > MAX_TEXT_LENGTH) throw textTooLong(span);
  return items.join(separator);
}

export const join: BuiltinDefinition = {
  arity: [2, 2],
  check: (args) => {
    const ok = assignable(args.types[0]!, listOf(TEXT));
    if (!ok) args.mismatch(0, 'a `List of Text`');
    const separator = args.text(1);
    return ok && separator ? TEXT : ERROR;
  },
  closure:
    ({ args: [a, b], span }) =>
    () => {
      const items = a!() as string[];
      return joined(items, b!() as string, span);
    },
  generated: ({ args: [a, b], span }) => `join(${a}, ${b}, ${span})`,
  helpers: { join: joined },
};

/**
 * PL2006–PL2010 and PL2018–PL2024: values of the wrong type, and what the checker proves about
 * paths and bindings. Types arrive as their names; a `ShownType` also carries the kind, for help.
 */
import { defineDiagnostic } from '../define-diagnostic.js';
import { nameHint } from '../suggest-name.js';
import { conversionHelp, TEXT_SHOWN, type ShownType } from './shown-type.js';

export const TypeMismatch = defineDiagnostic('PL2006', 'type mismatch (expected one type, found another)', {
  returned: (rule: string, expected: ShownType, found: ShownType) => ({
    message: `rule \`${rule}\` produces \`${expected.name}\`, but this returns \`${found.name}\``,
    help: conversionHelp(found, expected),
  }),
  failMessage: (found: ShownType) => ({
    message: `\`Fail with\` needs a \`Text\` message, found \`${found.name}\``,
    help: conversionHelp(found, TEXT_SHOWN),
  }),
  matchSubject: (found: string) => ({ message: `\`Match\` needs an enum, \`Int\` or \`Text\` value, found \`${found}\`` }),
  listElement: (expected: string, found: string) => ({
    message: `list elements must all have one type: expected \`${expected}\`, found \`${found}\``,
  }),
  recordField: (field: string, record: string, expected: ShownType, found: ShownType) => ({
    message: `field \`${field}\` of \`${record}\` must be \`${expected.name}\`, found \`${found.name}\``,
    help: conversionHelp(found, expected),
  }),
  /** `position` counts from 1. */
  ruleArgument: (position: number, callee: string, parameter: string, expected: ShownType, found: ShownType) => ({
    message: `argument ${position} of \`${callee}\` (\`${parameter}\`) must be \`${expected.name}\`, found \`${found.name}\``,
    help: conversionHelp(found, expected),
  }),
  /** `wanted` is already worded, e.g. "a number". `position` counts from 1. */
  builtinArgument: (position: number, name: string, wanted: string, found: string) => ({
    message: `argument ${position} of \`${name}\` must be ${wanted}, found \`${found}\``,
  }),
  append: (value: string, list: string) => ({ message: `cannot append a \`${value}\` value to a \`${list}\`` }),
  workflowArgument: (parameter: string, callee: string, expected: string, argument: string, given: string) => ({
    message: `parameter \`${parameter}\` of \`${callee}\` must be \`${expected}\`, but \`${argument}\` is \`${given}\``,
  }),
});


export const ConditionNotBool = defineDiagnostic('PL2008', 'condition is not a `Bool`', (found: string) => ({
  message: `condition must be a \`Bool\`, found \`${found}\``,
  help: 'compare the value to make a `Bool`, like `amount > 0`',
}));

export const MissingReturn = defineDiagnostic('PL2009', 'not every path of the rule returns a value', (rule: string) => ({
  message: `not every path of rule \`${rule}\` returns a value`,
  help: 'end every path with `Return` or `Fail with`; an `If` needs an `Otherwise`, a `Match` an `Otherwise` or every variant',
}));

export const RebindChangesType = defineDiagnostic('PL2010', "`Let` rebinding changes the variable's type", (name: string, found: ShownType, held: ShownType) => ({
  message: `cannot rebind \`${name}\` to a \`${found.name}\` value: it holds \`${held.name}\``,
  help: conversionHelp(found, held) ?? 'a rebinding keeps the type of the first binding; choose a new name',
}));

export const PatternMismatch = defineDiagnostic('PL2018', '`Match` pattern does not fit the matched value (wrong enum or literal type)', {
  needsVariants: (pattern: string, enumName: string) => ({
    message: `\`${pattern}\` does not fit: the value matched is a \`${enumName}\`, so \`When\` needs its variants`,
  }),
  variantOfOther: (pattern: string, owner: string, enumName: string) => ({
    message: `\`${pattern}\` is a variant of \`${owner}\`, but the value matched is a \`${enumName}\``,
    help: `name a variant of \`${enumName}\``,
  }),
  noVariant: (enumName: string, variant: string, variants: Iterable<string>) => {
    const { hint, help } = nameHint(variant, variants, 'name one of its variants');
    return { message: `\`${enumName}\` has no variant \`${variant}\`${hint}`, help };
  },
  notInt: (pattern: string) => ({ message: `\`${pattern}\` does not fit: the value matched is an \`Int\``, help: 'write an `Int` literal, like `1`' }),
  notText: (pattern: string) => ({ message: `\`${pattern}\` does not fit: the value matched is a \`Text\``, help: 'write a text in double quotes, like `"a"`' }),
});

export const ForEachNeedsList = defineDiagnostic('PL2019', '`For each` needs a list', (found: string) => ({
  message: `\`For each\` needs a list, found \`${found}\``,
  help: 'loop over a value of a `List of …` type; a single value needs no loop',
}));

const EMPTY_LIST_HELP = 'give the list at least one element or bind it where its type is known';

export const UninferredEmptyList = defineDiagnostic('PL2020', 'the type of an empty list cannot be inferred here', {
  here: () => ({ message: 'the element type of this empty list cannot be inferred here', help: EMPTY_LIST_HELP }),
  undecided: () => ({
    message: 'the type of this empty list cannot be inferred: nothing in the rule decides its element type',
    help: 'give the list at least one element, or use it where its type is known (a record field, a `Return`, `append`)',
  }),
});

export const UnreachableStatement = defineDiagnostic(
  'PL2021',
  'unreachable statement after `Return` or `Fail with`',
  () => ({
    message: 'unreachable statement: every path before it has already ended the rule',
    help: 'remove it, or move it before the `Return` or `Fail with`',
  }),
  'warning',
);

/** `cycle` is the chain of fields, e.g. "`Node` → `Node`". */
export const RecordContainsItself = defineDiagnostic(
  'PL2022',
  'record type contains itself without a list in between (no value of it can exist)',
  (record: string, cycle: string) => ({
    message: `record \`${record}\` contains itself through ${cycle}; no value of it can exist`,
    help: 'use a `List of` type to allow a chain to end',
  }),
);

export const LoopVariableShadows = defineDiagnostic('PL2023', 'loop variable reuses the name of a variable that is already bound', (variable: string) => ({
  message: `loop variable \`${variable}\` reuses the name of a variable that is already bound`,
  help: 'choose another name for the loop variable',
}));

export const PossiblyUnbound = defineDiagnostic('PL2024', 'variable may be read before it has a value (it is bound only on some paths)', (name: string) => ({
  message: `\`${name}\` may not have a value here: it is bound only on some of the paths that lead here`,
  help: 'bind it before the `If`, `Match` or `For each` that binds it, or in every branch',
}));

/**
 * PL2001–PL2005 and PL2011–PL2017: names the checker cannot resolve or finds twice: values, types,
 * declarations, rules and fields. A "did you mean" is added to the message when a close name exists.
 */
import { defineDiagnostic } from '../define-diagnostic.js';
import { didYouMean, nameHint } from '../suggest-name.js';

export const UnknownName = defineDiagnostic('PL2001', 'unknown name', {
  recordType: (name: string) => ({ message: `\`${name}\` is a record type, not a value`, help: `build one with \`${name} with … set to …\`` }),
  /** `variant` is the enum's first variant, shown as an example. */
  enumType: (name: string, variant: string) => ({
    message: `\`${name}\` is an enum type, not a value`,
    help: `name one of its variants, e.g. \`${name}.${variant}\``,
  }),
  rule: (name: string) => ({ message: `\`${name}\` is a rule, not a value`, help: `call it: \`${name}(…)\`` }),
  unknown: (name: string, candidates: Iterable<string>) => {
    const hint = didYouMean(name, candidates);
    return { message: `unknown name \`${name}\`${hint}`, help: hint === '' ? 'bind it with `Let` first, or take it as a parameter of the rule' : undefined };
  },
  noVariant: (enumName: string, variant: string, variants: Iterable<string>) => {
    const { hint, help } = nameHint(variant, variants, 'name one of its variants');
    return { message: `\`${enumName}\` has no variant \`${variant}\`${hint}`, help };
  },
});

export const UnknownType = defineDiagnostic('PL2002', 'unknown type', {
  unknown: (name: string, typeNames: Iterable<string>) => {
    const hint = didYouMean(name, typeNames);
    return { message: `unknown type \`${name}\`${hint}`, help: hint === '' ? 'declare it with `Define`, or use `Int`, `Float`, `Text` or `Bool`' : undefined };
  },
  notAType: (name: string, kind: 'rule' | 'workflow') => ({ message: `\`${name}\` is a ${kind}, not a type` }),
  unknownEnum: (name: string, enums: Iterable<string>) => {
    const hint = didYouMean(name, enums);
    return { message: `unknown enum \`${name}\`${hint}`, help: hint === '' ? 'declare it with `Define`' : undefined };
  },
  unknownRecordType: (name: string, records: Iterable<string>) => {
    const hint = didYouMean(name, records);
    return { message: `unknown record type \`${name}\`${hint}`, help: hint === '' ? 'declare it with `Define`' : undefined };
  },
  notRecordType: (name: string) => ({ message: `\`${name}\` is not a record type`, help: 'only a record type is built with `with … set to …`' }),
});

/** `earlier` describes the first declaration, e.g. "a rule". */
export const DuplicateDeclaration = defineDiagnostic('PL2003', 'duplicate declaration name (type, enum or rule)', (name: string, earlier: string, line: number) => ({
  message: `\`${name}\` is already declared as ${earlier} on line ${line}`,
  help: 'give one of them another name',
}));

export const DuplicateMember = defineDiagnostic('PL2004', 'duplicate field or parameter name', {
  field: (field: string, record: string) => ({ message: `field \`${field}\` is declared twice in \`${record}\``, help: 'remove one of them, or rename it' }),
  /** `owner` names the declaration, e.g. "rule `score`". */
  parameter: (parameter: string, owner: string) => ({ message: `parameter \`${parameter}\` is declared twice in ${owner}`, help: 'remove one of them, or rename it' }),
});

/** `owner` declared the variant first; `enumName` declares it again (possibly the same enum). */
export const DuplicateVariant = defineDiagnostic('PL2005', 'duplicate enum variant name within the module', (variant: string, owner: string, enumName: string) => ({
  message: `variant \`${variant}\` is declared ${owner === enumName ? `twice in \`${enumName}\`` : `in \`${owner}\` and in \`${enumName}\``}; variant names must be unique in the module`,
  help: 'rename one of them',
}));

/** `cycle` is the chain of calls, e.g. "`a` → `b` → `a`". */
export const RecursiveCall = defineDiagnostic('PL2011', 'rule calls form a cycle (recursion is not allowed)', (cycle: string) => ({
  message: `rule calls form a cycle: ${cycle}; recursion is not allowed`,
  help: 'break the cycle: a rule may call only rules that do not call it back',
}));

export const UnknownCallee = defineDiagnostic('PL2012', 'unknown rule or function', {
  unknown: (callee: string, candidates: Iterable<string>) => ({ message: `unknown rule or function \`${callee}\`${didYouMean(callee, candidates)}` }),
  unknownRule: (callee: string, rules: Iterable<string>) => {
    const { hint, help } = nameHint(callee, rules, 'call one of the rules of the module');
    return { message: `unknown rule \`${callee}\`${hint}`, help };
  },
  workflow: (callee: string) => ({ message: `\`${callee}\` is a workflow, not a rule`, help: 'a step calls a rule of the module' }),
});

export const WrongArgumentCount = defineDiagnostic('PL2013', 'wrong number of arguments', {
  rule: (callee: string, count: number, got: number) => ({
    message: `rule \`${callee}\` takes ${count} argument${count === 1 ? '' : 's'}, got ${got}`,
    help: `pass one argument for each parameter of \`${callee}\`, in the order they are declared`,
  }),
  /** `arity` is already worded, e.g. "1 to 2 arguments". */
  builtin: (name: string, arity: string, got: number) => ({ message: `\`${name}\` takes ${arity}, got ${got}` }),
});

export const MissingField = defineDiagnostic('PL2014', 'record construction is missing a field', (record: string, missing: readonly string[]) => ({
  message: `\`${record}\` is missing ${missing.length === 1 ? 'field' : 'fields'} ${missing.map((name) => `\`${name}\``).join(', ')}`,
  help: 'every field must be set; there is no null',
}));

export const UnknownOrDuplicateField = defineDiagnostic('PL2015', 'record construction sets an unknown or duplicate field', {
  unknown: (record: string, field: string, fields: Iterable<string>) => {
    const { hint, help } = nameHint(field, fields, 'set its fields');
    return { message: `\`${record}\` has no field \`${field}\`${hint}`, help };
  },
  setTwice: (field: string) => ({ message: `field \`${field}\` is set twice`, help: 'set each field once' }),
});

export const UnknownFieldAccess = defineDiagnostic('PL2016', 'unknown field in field access', {
  noField: (record: string, field: string, fields: Iterable<string>) => {
    const { hint, help } = nameHint(field, fields, 'read one of its fields');
    return { message: `\`${record}\` has no field \`${field}\`${hint}`, help };
  },
  notRecord: (field: string, type: string) => ({ message: `cannot read field \`${field}\` of a \`${type}\` value; only records have fields` }),
});

export const DuplicateCase = defineDiagnostic('PL2017', '`Match` names the same value twice', (pattern: string) => ({
  message: `\`${pattern}\` is already named by an earlier \`When\``,
  help: 'remove it here: the earlier `When` already handles it',
}));

/**
 * PL5xxx: a context that does not fit the parameters of the rule evaluated. `path` names the value
 * in the context (`applicant.age`, `items[2]`); `expects` is the expected type already worded.
 */
import { defineDiagnostic } from '../define-diagnostic.js';
import { didYouMean } from '../suggest-name.js';

/** A failure caused by the context the caller sent (PL5xxx), not by the rule that ran. */
export function isContextInputCode(code: string): boolean {
  return /^PL5\d{3}$/.test(code);
}

/** How each type is written in JSON, for a value of the wrong kind. */
const JSON_FORMS = 'send a number for `Int` and `Float`, `true` or `false` for `Bool`, a string for `Text` and enum variants, an array for a list, an object for a record';

export const ContextNotObject = defineDiagnostic('PL5001', 'context must be a JSON object keyed by parameter name or an array in parameter order', (got: string) => ({
  message: `context must be a JSON object keyed by parameter name or an array in parameter order, got ${got}`,
  help: 'send an object like `{"amount": 100}`, or an array of the arguments in order',
}));

export const MissingValue = defineDiagnostic('PL5002', 'missing value (parameter or record field)', (path: string, expects: string) => ({
  message: `\`${path}\` is missing (expects ${expects})`,
  help: 'every parameter and field needs a value; there is no null',
}));

export const UnexpectedKey = defineDiagnostic('PL5003', 'unexpected key (not a parameter or declared field)', {
  field: (path: string, key: string, record: string, fields: Iterable<string>) => {
    const hint = didYouMean(key, fields);
    return { message: `\`${path}\` is not a field of \`${record}\`${hint}`, help: hint === '' ? 'remove it from the context' : undefined };
  },
  parameter: (key: string, rule: string, parameters: Iterable<string>) => {
    const hint = didYouMean(key, parameters);
    return { message: `\`${key}\` is not a parameter of \`${rule}\`${hint}`, help: hint === '' ? 'remove it from the context' : undefined };
  },
});

/** `got` describes the JSON value, e.g. "text `\"a\"`". */
export const WrongJsonType = defineDiagnostic('PL5004', 'wrong JSON type for the expected type', (path: string, expects: string, got: string) => ({
  message: `\`${path}\` expects ${expects}, got ${got}`,
  help: JSON_FORMS,
}));

export const UnsafeIntegerInput = defineDiagnostic('PL5005', 'number is not an integer in the safe range', (path: string, value: string) => ({
  message: `\`${path}\` expects Int, got number \`${value}\`, which is not an integer in the safe range ±(2^53−1)`,
  help: 'send a whole number from -9007199254740991 to 9007199254740991',
}));

export const UnknownVariantInput = defineDiagnostic('PL5006', 'unknown enum variant', (path: string, expects: string, got: string, value: string, variants: Iterable<string>) => {
  const hint = didYouMean(value, variants);
  return {
    message: `\`${path}\` expects ${expects}, got ${got}${hint}`,
    help: hint === '' ? "send a variant's name as a string, spelled exactly as declared" : undefined,
  };
});

/** `parameters` are the rule's parameter names in order. */
export const WrongPositionalCount = defineDiagnostic('PL5007', 'wrong number of positional arguments', (rule: string, parameters: readonly string[], got: number) => {
  const count = parameters.length;
  const listed = count > 0 ? ` (${parameters.map((name) => `\`${name}\``).join(', ')})` : '';
  return {
    message: `\`${rule}\` takes ${count} argument${count === 1 ? '' : 's'}${listed}, got an array of ${got}`,
    help: 'send one value per parameter, in order, or an object keyed by parameter name',
  };
});

export const InputTooDeep = defineDiagnostic('PL5008', 'value nested deeper than 64 levels of lists and records', (path: string, maxDepth: number) => ({
  message: `\`${path}\` is nested deeper than ${maxDepth} levels of lists and records`,
  help: 'send a flatter value, e.g. a list of records rather than records nested in records',
}));

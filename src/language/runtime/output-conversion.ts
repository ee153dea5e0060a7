/**
 * Internal values → JSON (docs/language.md §7): records become objects with their fields in
 * declaration order, enum values their variant name, lists arrays. Values whose type holds no
 * record or enum are already JSON and pass through untouched.
 */
import type { JsonValue } from '../api-types.js';
import type { ValueType } from '../checker/types.js';
import { sharedTemplates, type Instantiate } from './closure-template.js';
import type { TypeEnvironment } from './type-environment.js';
import { propertyKey } from './property-key.js';

export type OutputConversion = (value: unknown) => JsonValue;

const identity: OutputConversion = (value) => value as JsonValue;

function isJsonAlready(type: ValueType): boolean {
  if (type.kind === 'List') return isJsonAlready(type.element);
  return type.kind !== 'Record' && type.kind !== 'Enum';
}

// ---------- templates (see closure-template.ts): bodies refer only to their parameters ----------

const enumName =
  (names: readonly string[]): OutputConversion =>
  (value) =>
    names[value as number]!;

/** `element` is resolved on first use: a record may contain a list of itself. */
const listOutput =
  (element: () => OutputConversion): OutputConversion =>
  (value) => {
    const list = value as unknown[];
    const convert = element();
    const out: JsonValue[] = [];
    for (let i = 0; i < list.length; i++) out.push(convert(list[i]));
    return out;
  };

/** One store site per field position, as in record input (see input-conversion.ts). */
const recordUnrolled =
  (count: number, names: readonly string[], c: readonly OutputConversion[]): OutputConversion =>
  (value) => {
    const f = value as unknown[];
    const out: { [key: string]: JsonValue } = {};
    out[names[0]!] = c[0]!(f[0]);
    if (count === 1) return out;
    out[names[1]!] = c[1]!(f[1]);
    if (count === 2) return out;
    out[names[2]!] = c[2]!(f[2]);
    if (count === 3) return out;
    out[names[3]!] = c[3]!(f[3]);
    if (count === 4) return out;
    out[names[4]!] = c[4]!(f[4]);
    if (count === 5) return out;
    out[names[5]!] = c[5]!(f[5]);
    return out;
  };

const recordLooped =
  (names: readonly string[], c: readonly OutputConversion[], define: boolean): OutputConversion =>
  (value) => {
    const fields = value as unknown[];
    const out: { [key: string]: JsonValue } = {};
    for (let i = 0; i < names.length; i++) {
      const v = c[i]!(fields[i]);
      // `__proto__` as a plain assignment would set the prototype instead of a field.
      if (define) Object.defineProperty(out, names[i]!, { value: v, enumerable: true, writable: true, configurable: true });
      else out[names[i]!] = v;
    }
    return out;
  };

const UNROLLED_FIELDS = 6;

/** Converts a value of a type to JSON; `make` chooses shared templates or fresh copies. */
export function createOutputConversion(type: ValueType, env: TypeEnvironment, make: Instantiate = sharedTemplates): OutputConversion {
  if (isJsonAlready(type)) return identity;
  switch (type.kind) {
    case 'Enum':
      return make(enumName)(env.enums.get(type.name)!.variants);
    case 'List': {
      let convert: OutputConversion | null = null;
      return make(listOutput)(() => (convert ??= createOutputConversion(type.element, env, make)));
    }
    case 'Record': {
      const record = env.records.get(type.name)!;
      const names = record.fields.map((f) => propertyKey(f.name));
      const converts = record.fields.map((f) => createOutputConversion(f.type, env, make));
      if (names.length === 0 || names.length > UNROLLED_FIELDS || names.includes('__proto__')) {
        return make(recordLooped)(names, converts, names.includes('__proto__'));
      }
      return make(recordUnrolled)(names.length, names, converts);
    }
    default:
      return identity;
  }
}

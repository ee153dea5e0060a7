/**
 * Internal values → JSON (LANGUAGE.md §7): records become objects with their fields in
 * declaration order, enum values their variant name, lists arrays. Values whose type holds no
 * record or enum are already JSON and pass through untouched.
 */
import type { ValueType } from '../checker/types.js';
import type { JsonValue } from '../api-types.js';
import type { TypeEnvironment } from './input-conversion.js';

export type OutputConversion = (value: unknown) => JsonValue;

const identity: OutputConversion = (value) => value as JsonValue;

function isJsonAlready(type: ValueType): boolean {
  if (type.kind === 'List') return isJsonAlready(type.element);
  return type.kind !== 'Record' && type.kind !== 'Enum';
}

export function createOutputConversion(type: ValueType, env: TypeEnvironment): OutputConversion {
  if (isJsonAlready(type)) return identity;
  switch (type.kind) {
    case 'Enum': {
      const names = env.enums.get(type.name)!.variants;
      return (value) => names[value as number]!;
    }
    case 'List': {
      let convert: OutputConversion | null = null;
      return (value) => {
        const list = value as unknown[];
        convert ??= createOutputConversion(type.element, env);
        const out = new Array<JsonValue>(list.length);
        for (let i = 0; i < list.length; i++) out[i] = convert(list[i]);
        return out;
      };
    }
    case 'Record':
      return recordOutput(type.name, env);
    default:
      return identity;
  }
}

/** Unrolled like record input (see input-conversion.ts): one store site per field position. */
const UNROLLED_FIELDS = 6;

function recordOutput(name: string, env: TypeEnvironment): OutputConversion {
  const record = env.records.get(name)!;
  const names = record.fields.map((f) => f.name);
  const count = names.length;
  let converts: OutputConversion[] | null = null;
  const init = (): OutputConversion[] => (converts = record.fields.map((f) => createOutputConversion(f.type, env)));
  // `__proto__` as a plain assignment would set the prototype instead of a field.
  if (count === 0 || count > UNROLLED_FIELDS || names.includes('__proto__')) {
    const define = names.includes('__proto__');
    return (value) => {
      const fields = value as unknown[];
      const c = converts ?? init();
      const out: { [key: string]: JsonValue } = {};
      for (let i = 0; i < count; i++) {
        const v = c[i]!(fields[i]);
        if (define) Object.defineProperty(out, names[i]!, { value: v, enumerable: true, writable: true, configurable: true });
        else out[names[i]!] = v;
      }
      return out;
    };
  }
  const [n0, n1, n2, n3, n4, n5] = names as [string, string, string, string, string, string];
  return (value) => {
    const f = value as unknown[];
    const c = converts ?? init();
    const out: { [key: string]: JsonValue } = {};
    out[n0] = c[0]!(f[0]);
    if (count === 1) return out;
    out[n1] = c[1]!(f[1]);
    if (count === 2) return out;
    out[n2] = c[2]!(f[2]);
    if (count === 3) return out;
    out[n3] = c[3]!(f[3]);
    if (count === 4) return out;
    out[n4] = c[4]!(f[4]);
    if (count === 5) return out;
    out[n5] = c[5]!(f[5]);
    return out;
  };
}

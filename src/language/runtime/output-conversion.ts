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
    case 'Record': {
      const record = env.records.get(type.name)!;
      const names = record.fields.map((f) => f.name);
      // `__proto__` as a plain assignment would set the prototype instead of a field.
      const define = names.includes('__proto__');
      let converts: OutputConversion[] | null = null;
      return (value) => {
        const fields = value as unknown[];
        converts ??= record.fields.map((f) => createOutputConversion(f.type, env));
        const out: { [key: string]: JsonValue } = {};
        for (let i = 0; i < names.length; i++) {
          const v = converts[i]!(fields[i]);
          if (define) Object.defineProperty(out, names[i]!, { value: v, enumerable: true, writable: true, configurable: true });
          else out[names[i]!] = v;
        }
        return out;
      };
    }
    default:
      return identity;
  }
}

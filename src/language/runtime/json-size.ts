/**
 * The size of a value's JSON (compact, UTF-8) computed from the internal value and its static
 * type, without building the JSON. It stops as soon as the size passes a limit, so measuring a
 * huge value costs about the limit, and it refuses values nested deeper than MAX_VALUE_DEPTH, so
 * its recursion (and the conversion that follows it) stays shallow.
 */
import type { ValueType } from '../checker/types.js';
import type { TypeEnvironment } from './type-environment.js';
import { staticDepth } from './json-depth.js';
import { propertyKey } from './property-key.js';
import { MAX_VALUE_DEPTH } from './value-limits.js';

/** Returned instead of a size when the value is nested deeper than MAX_VALUE_DEPTH. */
export const TOO_DEEP = -1;

/** Bytes of the value's JSON; some number above `limit` once it passes it; or TOO_DEEP. */
export type JsonSize = (value: unknown, limit: number) => number;

/** Bytes of a finite number's JSON. */
export function numberSize(n: number): number {
  if (Number.isSafeInteger(n)) {
    let length = n < 0 ? 2 : 1;
    for (let rest = Math.abs(n); rest >= 10; rest = Math.floor(rest / 10)) length++;
    return length;
  }
  return String(n).length;
}

/** Bytes of a string's JSON in UTF-8, or some number above `limit` once it passes it. */
export function textSize(text: string, limit: number): number {
  // Every character takes at least one byte: a long text is over without reading it.
  if (text.length + 2 > limit) return text.length + 2;
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) bytes += c === 0x22 || c === 0x5c ? 2 : 1;
      else bytes += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    } else if (c < 0x800) {
      bytes += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else {
      // A lone surrogate is written as a `\uXXXX` escape.
      bytes += c >= 0xd800 && c <= 0xdfff ? 6 : 3;
    }
  }
  return bytes;
}

interface Measure {
  /** Bytes counted so far, and the limit at which counting stops. */
  bytes: number;
  limit: number;
  deep: boolean;
}

type Measurer = (value: unknown, depth: number, m: Measure) => void;

const LONGEST_FLOAT = '-1.2345678901234567e-308'.length;

/** The largest JSON a value of the type can have, or Infinity when it is unbounded; memoised per record. */
function staticSize(type: ValueType, env: TypeEnvironment, known: Map<string, number>): number {
  switch (type.kind) {
    case 'Int':
      return numberSize(-Number.MAX_SAFE_INTEGER);
    case 'Float':
      return LONGEST_FLOAT;
    case 'Bool':
      return 5;
    case 'Enum':
      return Math.max(...env.enums.get(type.name)!.variants.map((v) => textSize(propertyKey(v), Infinity)));
    case 'Record': {
      const done = known.get(type.name);
      if (done !== undefined) return done;
      known.set(type.name, Infinity);
      const fields = env.records.get(type.name)!.fields;
      let total = 2 + Math.max(0, fields.length - 1);
      for (const f of fields) total += textSize(propertyKey(f.name), Infinity) + 1 + staticSize(f.type, env, known);
      known.set(type.name, total);
      return total;
    }
    default:
      return Infinity;
  }
}

function measurer(type: ValueType, env: TypeEnvironment): Measurer {
  switch (type.kind) {
    case 'Int':
    case 'Float':
      return (value, _depth, m) => {
        m.bytes += numberSize(value as number);
      };
    case 'Bool':
      return (value, _depth, m) => {
        m.bytes += value ? 4 : 5;
      };
    case 'Text':
      return (value, _depth, m) => {
        m.bytes += textSize(value as string, m.limit - m.bytes);
      };
    case 'Enum': {
      const sizes = env.enums.get(type.name)!.variants.map((v) => textSize(propertyKey(v), Infinity));
      return (value, _depth, m) => {
        m.bytes += sizes[value as number]!;
      };
    }
    case 'List': {
      // Resolved on first use: a record may contain a list of itself.
      let element: Measurer | null = null;
      return (value, depth, m) => {
        if (depth > MAX_VALUE_DEPTH) {
          m.deep = true;
          return;
        }
        const list = value as unknown[];
        const measure = (element ??= measurer(type.element, env));
        m.bytes += 1 + Math.max(1, list.length);
        for (let i = 0; i < list.length && m.bytes <= m.limit && !m.deep; i++) measure(list[i], depth + 1, m);
      };
    }
    case 'Record': {
      const record = env.records.get(type.name)!;
      const fixed = 1 + Math.max(1, record.fields.length) + record.fields.reduce((sum, f) => sum + textSize(propertyKey(f.name), Infinity) + 1, 0);
      let fields: Measurer[] | null = null;
      return (value, depth, m) => {
        if (depth > MAX_VALUE_DEPTH) {
          m.deep = true;
          return;
        }
        const values = value as unknown[];
        fields ??= record.fields.map((f) => measurer(f.type, env));
        m.bytes += fixed;
        for (let i = 0; i < fields.length && m.bytes <= m.limit && !m.deep; i++) fields[i]!(values[i], depth + 1, m);
      };
    }
  }
}

/** Measures values of one type exactly (up to the limit). */
export function createJsonSize(type: ValueType, env: TypeEnvironment): JsonSize {
  const measure = measurer(type, env);
  return (value, limit) => {
    const m: Measure = { bytes: 0, limit, deep: false };
    measure(value, 1, m);
    return m.deep ? TOO_DEEP : m.bytes;
  };
}

/**
 * The largest JSON any value of the type can have when that is bounded and the type nests no
 * deeper than MAX_VALUE_DEPTH (a record of numbers, say), otherwise Infinity. Values of a type
 * whose largest size fits a limit need no measuring.
 */
export function largestJsonSize(type: ValueType, env: TypeEnvironment): number {
  return staticDepth(type, env) <= MAX_VALUE_DEPTH ? staticSize(type, env, new Map()) : Infinity;
}

/**
 * A type without lists: its values have one shape, and only their Texts vary in size. `fixed`
 * bounds everything but the Texts' characters; `texts` are the Texts' positions (record field
 * indexes from the value down). A Text of n characters takes at most 6n bytes plus its quotes.
 */
export interface FixedShape {
  readonly fixed: number;
  readonly texts: readonly (readonly number[])[];
}

/** The fixed shape of a type, or null when it holds a list. */
export function fixedShape(type: ValueType, env: TypeEnvironment): FixedShape | null {
  const texts: number[][] = [];
  const walk = (t: ValueType, path: number[]): number | null => {
    switch (t.kind) {
      case 'Text':
        texts.push(path);
        return 2;
      case 'List':
        return null;
      case 'Record': {
        // A record cannot contain itself without a list in between (PL2022): this ends.
        const fields = env.records.get(t.name)!.fields;
        let total = 2 + Math.max(0, fields.length - 1);
        for (let i = 0; i < fields.length; i++) {
          const field = walk(fields[i]!.type, [...path, i]);
          if (field === null) return null;
          total += textSize(propertyKey(fields[i]!.name), Infinity) + 1 + field;
        }
        return total;
      }
      default:
        return staticSize(t, env, new Map());
    }
  };
  const fixed = walk(type, []);
  return fixed === null ? null : { fixed, texts };
}

/** Most bytes a character of a Text takes in JSON (a `\uXXXX` escape). */
export const MAX_CHARACTER_BYTES = 6;

import { describe, expect, it } from 'vitest';
import { canonicalJson, NoCanonicalFormError } from '../canonical-json.js';

function refusal(value: unknown): NoCanonicalFormError {
  try {
    canonicalJson(value);
  } catch (error) {
    if (error instanceof NoCanonicalFormError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('canonicalJson', () => {
  it('sorts members at every depth, without whitespace', () => {
    expect(canonicalJson({ b: [{ z: 1, y: { d: null, c: true } }], a: 'x' })).toBe('{"a":"x","b":[{"y":{"c":true,"d":null},"z":1}]}');
  });

  it('leaves out undefined members, as JSON does', () => {
    expect(canonicalJson({ a: undefined, b: { c: undefined } })).toBe('{"b":{}}');
  });

  it('keeps `__proto__` as a member and accepts objects without a prototype', () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 });
    expect(canonicalJson(bare)).toBe('{"a":2,"b":1}');
  });

  it('does not change the value it writes', () => {
    const value = { b: 1, a: [{ d: 1, c: 2 }] };
    canonicalJson(value);
    expect(Object.keys(value)).toEqual(['b', 'a']);
    expect(Object.keys(value.a[0]!)).toEqual(['d', 'c']);
  });

  it.each([
    ['a lone surrogate', { a: ['x', 'y\udc00'] }, '$.a[1]', 'contains a lone surrogate'],
    ['a lone surrogate in a key', { a: { '\ud800x': 1 } }, '$.a', 'has a key that contains a lone surrogate'],
    ['NaN', { a: Number.NaN }, '$.a', 'must be a finite number'],
    ['-Infinity', [-Infinity], '$[0]', 'must be a finite number'],
    ['a bigint', { a: { b: 1n } }, '$.a.b', 'is not a JSON value (bigint)'],
    ['a function', { f: () => 1 }, '$.f', 'is not a JSON value (function)'],
    ['a symbol', { s: Symbol('s') }, '$.s', 'is not a JSON value (symbol)'],
    ['undefined itself', undefined, '$', 'is not a JSON value (undefined)'],
    ['undefined in an array', [1, undefined], '$[1]', 'is undefined'],
    ['a hole in an array', [1, , 3], '$[1]', 'is undefined'], // eslint-disable-line no-sparse-arrays
    ['a Date', { d: new Date(0) }, '$.d', 'must be a plain object, array or JSON scalar'],
    ['a Map', { m: new Map() }, '$.m', 'must be a plain object, array or JSON scalar'],
    ['a boxed string', [new String('s')], '$[0]', 'must be a plain object, array or JSON scalar'],
  ])('refuses %s, saying where it is', (_label, value, at, problem) => {
    const error = refusal(value);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ at, problem, message: `\`${at}\` ${problem}` });
  });

  it('refuses a value that contains itself', () => {
    const value: Record<string, unknown> = { a: [] };
    (value.a as unknown[]).push({ back: value });
    expect(refusal(value)).toMatchObject({ at: '$.a[0].back', problem: 'contains itself' });
  });

  it('accepts the same object twice when it does not contain itself', () => {
    const shared = { b: 1 };
    expect(canonicalJson({ x: shared, y: [shared, shared] })).toBe('{"x":{"b":1},"y":[{"b":1},{"b":1}]}');
  });
});

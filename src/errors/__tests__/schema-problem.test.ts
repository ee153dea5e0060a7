import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeSchemaProblem, jsonTypeName, type BodyShape } from '../schema-problem.js';

const schema = z.strictObject({ name: z.string().min(1), count: z.number().int().optional() });
const shape: BodyShape = { where: 'the request body', fieldList: '`name` and `count` (optional)', fieldRules: { name: 'a non-empty string' } };

function problem(input: unknown, at: BodyShape = shape): string {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error('expected a schema failure');
  return describeSchemaProblem(parsed.error, input, at);
}

describe('describeSchemaProblem', () => {
  it('names unknown fields and what the body takes', () => {
    expect(problem({ name: 'a', extra: 1 })).toBe('the request body has unknown field `extra`; it takes `name` and `count` (optional)');
    expect(problem({ name: 'a', x: 1, y: 2 })).toBe('the request body has unknown fields `x`, `y`; it takes `name` and `count` (optional)');
  });

  it('says what was sent when the body is no object', () => {
    expect(problem([1])).toBe('the request body must be a JSON object with `name` and `count` (optional) (got an array)');
    expect(problem(undefined)).toBe('the request body must be a JSON object with `name` and `count` (optional) (got nothing)');
  });

  it('names a missing field, or a wrong one with its rule and what was sent', () => {
    expect(problem({})).toBe('`name` is required');
    expect(problem({ name: '' })).toBe('`name` must be a non-empty string (got an empty string)');
    expect(problem({ name: 'a', count: 'x' })).toBe('`count` must be valid (got a string of 1 characters)');
  });

  it('prefixes field names with where the object sits', () => {
    expect(problem({ name: 7 }, { ...shape, where: 'items[2]' })).toBe('`items[2].name` must be a non-empty string (got a number)');
  });
});

describe('jsonTypeName', () => {
  it('describes a value without quoting it', () => {
    expect(jsonTypeName(null)).toBe('null');
    expect(jsonTypeName({})).toBe('an object');
    expect(jsonTypeName('\uD800')).toBe('a string with unpaired surrogates');
    expect(jsonTypeName(true)).toBe('a boolean');
  });
});

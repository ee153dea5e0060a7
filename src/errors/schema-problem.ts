/**
 * The 400 message for a body that fails its zod schema: the first problem only, naming the field
 * and what was sent instead, so a client can fix it without reading the schema.
 */
import type { z } from 'zod';
import { hasLoneSurrogate } from '../kernel/index.js';
import { listNames } from './problem-list.js';

/** What a body is, for the messages that describe it. */
export interface BodyShape {
  /** `the request body`, or where the object sits in it (`items[3]`, whose fields are then named `items[3].field`). */
  where: string;
  /** The fields it takes, as a message lists them. */
  fieldList: string;
  /** What each field must be; a field without a rule is said to need to be `valid`. */
  fieldRules: Readonly<Record<string, string>>;
}

/** A sent JSON value described by kind and size, never quoted (it may be megabytes long). */
export function jsonTypeName(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    if (value === '') return 'an empty string';
    return hasLoneSurrogate(value) ? 'a string with unpaired surrogates' : `a string of ${value.length} characters`;
  }
  return `a ${typeof value}`;
}

export function describeSchemaProblem(error: z.ZodError, input: unknown, { where, fieldList, fieldRules }: BodyShape): string {
  const issue = error.issues[0]!;
  const field = issue.path[0];
  if (issue.code === 'unrecognized_keys') {
    return `${where} has unknown field${issue.keys.length > 1 ? 's' : ''} ${listNames(issue.keys)}; it takes ${fieldList}`;
  }
  if (typeof field !== 'string') return `${where} must be a JSON object with ${fieldList} (got ${jsonTypeName(input)})`;
  const value = (input as Record<string, unknown>)[field];
  const label = `\`${where === 'the request body' ? '' : `${where}.`}${field}\``;
  if (value === undefined) return `${label} is required`;
  return `${label} must be ${fieldRules[field] ?? 'valid'} (got ${jsonTypeName(value)})`;
}

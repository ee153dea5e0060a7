import { z } from 'zod';
import { hasLoneSurrogate } from './well-formed-text.js';

/**
 * Longest policy module, rule (function) and audit event type name taken anywhere: audit records
 * and rollups hold these names, so every entry point and both store adapters share the bound.
 */
export const MAX_NAME_LENGTH = 256;

/**
 * A policy module, rule (function) or audit event type name: 1 to MAX_NAME_LENGTH characters, well
 * formed, since the audit hash (canonical JSON) has no form for an unpaired surrogate.
 */
export function isName(value: string): boolean {
  return value.length > 0 && value.length <= MAX_NAME_LENGTH && !hasLoneSurrogate(value);
}

/**
 * The same rule for a zod schema (request bodies and the OpenAPI document). The bounds are stated
 * for the document; `isName` decides, since zod counts code points where the rule counts UTF-16
 * units (a name of 200 emoji is 400 of them, as the store and the audit records count).
 */
export const nameSchema = z.string().min(1).max(MAX_NAME_LENGTH).refine(isName);

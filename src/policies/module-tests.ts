import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { JsonValue } from '../language/api-types.js';

/**
 * A module's test cases: the content of `<module>.tests.json`, which `policy test` runs locally
 * and a deploy runs in the engine before anything is stored.
 */

/** Cases one deploy may carry: each is an evaluation in the engine, and a point of the rate limit. */
export const MAX_TEST_CASES = 1000;

/**
 * Any JSON value. Test files and request bodies arrive through JSON.parse, so each value already is
 * one: walking it again would only cost time in proportion to its size (on the API's event loop, a
 * second for a megabyte of nested lists).
 */
const json = z.custom<JsonValue>((value) => value !== undefined).describe('any JSON value');

export const testCaseSchema = z
  .object({
    name: z.string().min(1).max(256),
    /** Optional: which part of the policy the case exercises. */
    why: z.string().max(4096).optional(),
    rule: z.string().min(1).max(256),
    /** An object keyed by parameter name or an array in parameter order; default `{}`. */
    context: z.union([z.record(z.string(), json), z.array(json)]).optional(),
    /** The whole result. */
    expect: json.optional(),
    /** Some fields of a record result (the others may be anything). */
    expectFields: z.record(z.string(), json).optional(),
    /** The code of the first error diagnostic (`PL3001`…): the evaluation must fail with it. */
    expectError: z.string().regex(/^PL\d{4}$/).optional(),
  })
  .strict()
  .refine((c) => [c.expect, c.expectFields, c.expectError].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of `expect`, `expectFields` and `expectError`',
  });

export const moduleTestsSchema = z.object({ cases: z.array(testCaseSchema).min(1).max(MAX_TEST_CASES) }).strict();

export type TestCase = z.infer<typeof testCaseSchema>;
export type ModuleTests = z.infer<typeof moduleTestsSchema>;

/** What one case's evaluation gave: a value, or the code and message of its first error. */
export type CaseOutcome = { ok: true; value: JsonValue } | { ok: false; code: string; error: string };

/** A case that did not pass: what it expected and what it got, as JSON, and why in words. */
export interface CaseFailure {
  name: string;
  rule: string;
  /** `{result}`, `{fields}` or `{error: <code>}`: the expectation of the case. */
  expected: { result: JsonValue } | { fields: Record<string, JsonValue> } | { error: string };
  /** `{result}` or `{error: <code>, message}`: what the evaluation gave. */
  actual: { result: JsonValue } | { error: string; message: string };
  reason: string;
}

function describeValue(value: JsonValue | undefined): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function expectationOf(testCase: TestCase): CaseFailure['expected'] {
  if (testCase.expectError !== undefined) return { error: testCase.expectError };
  if (testCase.expectFields !== undefined) return { fields: testCase.expectFields };
  return { result: testCase.expect ?? null };
}

/** Why the case failed, or null when it passed. */
function reasonOf(testCase: TestCase, outcome: CaseOutcome): string | null {
  if (!outcome.ok) {
    if (testCase.expectError !== undefined) return outcome.code === testCase.expectError ? null : `expected error ${testCase.expectError}, got ${outcome.code}`;
    return `evaluation failed: ${outcome.code} ${outcome.error}`;
  }
  if (testCase.expectError !== undefined) return `expected error ${testCase.expectError}, got ${describeValue(outcome.value)}`;
  if (testCase.expectFields !== undefined) {
    const value = outcome.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return `expected a record, got ${describeValue(value)}`;
    for (const [field, wanted] of Object.entries(testCase.expectFields)) {
      if (!isDeepStrictEqual(value[field], wanted)) return `field \`${field}\`: expected ${describeValue(wanted)}, got ${describeValue(value[field])}`;
    }
    return null;
  }
  return isDeepStrictEqual(outcome.value, testCase.expect) ? null : `expected ${describeValue(testCase.expect)}, got ${describeValue(outcome.value)}`;
}

const actualOf = (outcome: CaseOutcome): CaseFailure['actual'] => (outcome.ok ? { result: outcome.value } : { error: outcome.code, message: outcome.error });

/** The case's failure, or null when the outcome is what it expects. */
export function judgeCase(testCase: TestCase, outcome: CaseOutcome): CaseFailure | null {
  const reason = reasonOf(testCase, outcome);
  if (reason === null) return null;
  return { name: testCase.name, rule: testCase.rule, expected: expectationOf(testCase), actual: actualOf(outcome), reason };
}

/** One case as a check reports it: a failure as a deploy reports it, or a pass with what it expected and got. */
export type CaseReport = (CaseFailure & { passed: false }) | (Omit<CaseFailure, 'reason'> & { passed: true });

export function caseReport(testCase: TestCase, outcome: CaseOutcome): CaseReport {
  const failure = judgeCase(testCase, outcome);
  if (failure !== null) return { ...failure, passed: false };
  return { name: testCase.name, rule: testCase.rule, passed: true, expected: expectationOf(testCase), actual: actualOf(outcome) };
}

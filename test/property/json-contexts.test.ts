// Whatever JSON a client puts in `context` — deep, wide, long strings, any unicode, numbers at the
// edges — the service answers with a 200 or a 4xx, never a 5xx, and other requests are unaffected.
// Real HTTP, Redis, worker threads and SQLite (the policy registry's harness).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyClient } from '../../clients/typescript/src/index.js';
import { PolicyHttpError } from '../../clients/typescript/src/index.js';
import { startPoliciesHarness, type PoliciesHarness } from '../integration/policies-support/policies-harness.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);

const SOURCE = `Module fuzz.contexts.

Define Applicant has name as Text, age as Int, scores as List of Float.

Rule decide given applicant as Applicant, limit as Int, produce Text:
  If applicant.age is at least limit:
    Return applicant.name.
  Return "no".
`;

const edgeNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 63, 1e308, -1e308, 5e-324, 0.1, 1.5),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 50 }), fc.string({ unit: 'binary', maxLength: 50 }), fc.constant('x'.repeat(20_000)));
const leaf = fc.oneof(edgeNumber, text, fc.boolean(), fc.constant(null));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 20 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom('applicant', 'limit', 'name', 'age', 'scores', '__proto__', 'constructor'), fc.string()), tie('value'), {
    maxKeys: 10,
  }),
})).value;

/** A context as raw JSON text: generated values, arrays nested past any bound, or very wide objects. */
const contextText = fc.oneof(
  json.map((value) => JSON.stringify({ applicant: value, limit: 18 })),
  json.map((value) => JSON.stringify(value)),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `{"applicant":${'['.repeat(depth)}${']'.repeat(depth)},"limit":1}`),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1, max: 5_000 }).map((width) => `{${Array.from({ length: width }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.record({ name: text, age: edgeNumber, scores: fc.array(edgeNumber, { maxLength: 30 }) }).map((applicant) => JSON.stringify({ applicant, limit: 18 })),
);

let h: PoliciesHarness;
let client: PolicyClient;

beforeAll(async () => {
  h = await startPoliciesHarness();
  client = h.signed(h.tenants.a, 'MEMBER');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

async function status(body: string, path: string): Promise<number> {
  try {
    return (await client.request('POST', path, body)).status;
  } catch (error) {
    if (error instanceof PolicyHttpError) return error.status;
    throw error;
  }
}

describe('generated JSON contexts', () => {
  it('never produce a 5xx, alone or as a batch item, and the service keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(contextText, async (context) => {
        const single = `{"source":${JSON.stringify(SOURCE)},"functionName":"decide","context":${context}}`;
        const batch = `{"items":[{"source":${JSON.stringify(SOURCE)},"functionName":"decide","context":${context}}]}`;
        const answers = [await status(single, '/api/v1/policies/evaluate-source'), await status(batch, '/api/v1/policies/evaluate-source/batch')];
        for (const answer of answers) expect(answer === 200 || (answer >= 400 && answer < 500)).toBe(true);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    const after = await client.evaluateSource<string>({ source: SOURCE, functionName: 'decide', context: { applicant: { name: 'ok', age: 30, scores: [] }, limit: 18 } });
    expect(after.ok ? after.result : after.error).toBe('ok');
  }, 600_000);
});

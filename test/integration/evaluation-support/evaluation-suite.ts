// The evaluation endpoints over real HTTP, Redis, worker threads and a store; run once per store
// adapter (evaluation-source.test.ts on SQLite, evaluation-mongo.test.ts on MongoDB / FerretDB).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/auth/request-signature.js';
import { PolicyHttpError, type PolicyClient } from '../../../clients/typescript/src/index.js';
import { verifyChain } from '../../../src/audit/index.js';
import type { Store } from '../../../src/store/index.js';
import { newKeyRing, startEvaluationHarness, type EvaluationHarness } from './evaluation-harness.js';
import {
  BROKEN_SOURCE,
  GERMAN_SOURCE,
  PRICING_MODULE,
  PRICING_SOURCE,
  RUNAWAY_SOURCE,
  priceContext,
  runawayContext,
} from './policies.js';

const SOURCE_PATH = '/api/v1/policies/evaluate-source';
const BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
const TIMEOUT_MS = 400;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A request whose body is sent exactly as given, signed unless `sign` is false. */
async function rawPost(
  h: EvaluationHarness,
  path: string,
  body: string,
  options: { headers?: Record<string, string>; sign?: boolean; role?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const signed =
    options.sign === false
      ? {}
      : signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: h.tenantId, role: options.role ?? 'MEMBER', secret: h.secret });
  const response = await fetch(h.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signed, ...options.headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function httpError(promise: Promise<unknown>): Promise<PolicyHttpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PolicyHttpError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

export function runEvaluationSuite(openStore: () => Promise<Store>, dispose: () => Promise<void> = async () => {}): void {
  let h: EvaluationHarness;
  let client: PolicyClient;

  beforeAll(async () => {
    h = await startEvaluationHarness({
      openStore,
      // A raised step budget leaves runaway loops to the wall-time limit.
      worker: { threads: 2, taskTimeoutMs: TIMEOUT_MS, stepBudget: 1_000_000_000_000 },
    });
    client = h.client();
  });

  afterAll(async () => {
    await h?.close();
    await dispose();
  });

  describe('POST /api/v1/policies/evaluate-source', () => {
    it('answers 200 with the result, a null error and the execution time', async () => {
      const outcome = await client.evaluateSource({
        source: PRICING_SOURCE,
        functionName: 'price',
        context: priceContext(30, 720, 100),
        locale: 'en-US',
      });
      expect(outcome.status).toBe(200);
      expect(outcome.ok).toBe(true);
      expect(outcome.raw).toEqual({ result: 200, error: null, executionTimeMs: expect.any(Number), diagnostics: [] });
      expect(outcome.executionTimeMs).toBeGreaterThanOrEqual(0);
    });

    it('takes the context as an array in parameter order and defaults the locale to en-US', async () => {
      const response = await client.request<Record<string, unknown>>('POST', SOURCE_PATH, {
        source: PRICING_SOURCE,
        functionName: 'price',
        context: [{ age: 40, score: 500 }, 10],
      });
      expect(response.body).toMatchObject({ result: 30, error: null });
    });

    it('evaluates German source with a German locale tag', async () => {
      const outcome = await client.evaluateSource({ source: GERMAN_SOURCE, functionName: 'doppelt', context: { x: 21 }, locale: 'de' });
      expect(outcome).toMatchObject({ ok: true, result: 42 });
    });

    describe('evaluation-level errors: 200, null result, error string and diagnostics', () => {
      const failing = async (input: Parameters<PolicyClient['evaluateSource']>[0]) => {
        const outcome = await client.evaluateSource(input);
        expect(outcome.status).toBe(200);
        expect(outcome.ok).toBe(false);
        const raw = outcome.raw as { result: unknown; error: string; code: string; executionTimeMs: number; diagnostics: Array<Record<string, unknown>> };
        expect(raw.result).toBeNull();
        expect(raw.diagnostics.length).toBeGreaterThan(0);
        expect(raw.code).toBe(raw.diagnostics[0]!.code);
        return raw;
      };

      it('syntax error, with its position', async () => {
        const raw = await failing({ source: BROKEN_SOURCE, functionName: 'f', context: {}, locale: 'en-US' });
        expect(raw.code).toMatch(/^PL1\d{3}$/);
        expect(raw.error).toMatch(/^PL1\d{3} .+ at 1:\d+$/);
        expect(raw.diagnostics[0]).toEqual({
          code: raw.code,
          severity: 'error',
          message: expect.any(String),
          help: expect.any(String),
          span: { start: expect.any(Number), end: expect.any(Number), line: 1, column: expect.any(Number), endLine: expect.any(Number), endColumn: expect.any(Number) },
        });
      });

      it('unknown function, with a suggestion', async () => {
        const raw = await failing({ source: PRICING_SOURCE, functionName: 'prise', context: {}, locale: 'en-US' });
        expect(raw.code).toBe('PL6002');
        expect(raw.error).toMatch(/^PL6002 .*`prise`.*did you mean `price`/);
      });

      it('input type mismatch, naming the path', async () => {
        const raw = await failing({ source: PRICING_SOURCE, functionName: 'price', context: { applicant: { age: 'old', score: 1 }, amount: 5 }, locale: 'en-US' });
        expect(raw.code).toMatch(/^PL5\d{3}$/);
        expect(raw.error).toContain('applicant.age');
      });

      it('runtime error raised by the rule, with its position', async () => {
        const raw = await failing({ source: PRICING_SOURCE, functionName: 'price', context: priceContext(12, 800, 5), locale: 'en-US' });
        expect(raw.code).toBe('PL3004');
        expect(raw.error).toMatch(/^PL3004 .*applicant is a minor.* at 7:5$/);
      });

      it('runtime error of an operation (modulo by zero)', async () => {
        const raw = await failing({ source: PRICING_SOURCE, functionName: 'remainder', context: { a: 7, b: 0 }, locale: 'en-US' });
        expect(raw.code).toBe('PL3002');
        expect(raw.error).toMatch(/^PL3002 .* at 13:\d+$/);
      });

      it('unsupported locale, listing the supported ones', async () => {
        const raw = await failing({ source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1), locale: 'fr-FR' });
        expect(raw.code).toBe('PL6001');
        expect(raw.error).toContain('`fr-FR`');
        expect(raw.error).toContain('en-US');
      });

      it('timeout of a runaway evaluation', async () => {
        const raw = await failing({ source: RUNAWAY_SOURCE, functionName: 'spin', context: runawayContext(), locale: 'en-US' });
        expect(raw.code).toBe('PL4004');
        expect(raw.error).toBe(`PL4004 evaluation timed out after ${TIMEOUT_MS} ms`);
        expect(raw.executionTimeMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
      });
    });

    describe('structurally invalid requests: 400 in the envelope', () => {
      const cases: Array<[string, unknown, RegExp]> = [
        ['missing source', { functionName: 'price', context: {} }, /`source` is required/],
        ['source not a string', { source: 42, functionName: 'price', context: {} }, /`source` must be a string .*got a number/],
        ['missing functionName', { source: PRICING_SOURCE, context: {} }, /`functionName` is required/],
        ['empty functionName', { source: PRICING_SOURCE, functionName: '', context: {} }, /`functionName` must be a non-empty string.*got an empty string/],
        ['missing context', { source: PRICING_SOURCE, functionName: 'price' }, /`context` is required/],
        ['context a string', { source: PRICING_SOURCE, functionName: 'price', context: 'x' }, /`context` must be an object .* or an array/],
        ['context null', { source: PRICING_SOURCE, functionName: 'price', context: null }, /`context` must be .*got null/],
        ['locale not a string', { source: PRICING_SOURCE, functionName: 'price', context: {}, locale: 7 }, /`locale` must be a language tag/],
        ['unknown field', { source: PRICING_SOURCE, functionName: 'price', context: {}, function: 'x' }, /unknown field `function`/],
        ['body an array', [1, 2], /must be a JSON object .*got an array/],
      ];
      for (const [name, body, message] of cases) {
        it(name, async () => {
          const error = await httpError(client.request('POST', SOURCE_PATH, body as Record<string, unknown>));
          expect(error.status).toBe(400);
          expect(error.code).toBe('ERR_EVALUATION_REQUEST_INVALID');
          expect(error.body).toEqual({ result: null, error: expect.stringMatching(message), executionTimeMs: 0, code: 'ERR_EVALUATION_REQUEST_INVALID' });
        });
      }

      it('unparsable JSON', async () => {
        const { status, body } = await rawPost(h, SOURCE_PATH, '{"source": ');
        expect(status).toBe(400);
        expect(body.code).toBe('ERR_REQUEST_JSON_MALFORMED');
      });

      it('a Content-Type other than application/json', async () => {
        const { status, body } = await rawPost(h, SOURCE_PATH, '{}', { headers: { 'content-type': 'text/plain' } });
        expect(status).toBe(400);
        expect(body.code).toBe('ERR_REQUEST_CONTENT_TYPE_UNSUPPORTED');
      });

      it('no body at all', async () => {
        const error = await httpError(client.request('POST', SOURCE_PATH));
        expect(error.status).toBe(400);
        expect(error.code).toBe('ERR_EVALUATION_REQUEST_INVALID');
      });

      it('a missing or ill-formed tenant header', async () => {
        const missing = await rawPost(h, SOURCE_PATH, '{}', { sign: false });
        expect([missing.status, missing.body.code]).toEqual([400, 'ERR_TENANT_HEADER_MISSING']);
        const bad = await rawPost(h, SOURCE_PATH, '{}', { sign: false, headers: { 'x-tenant-id': 'no spaces allowed' } });
        expect([bad.status, bad.body.code]).toEqual([400, 'ERR_TENANT_HEADER_INVALID']);
      });

      it('a trace parameter other than true or false, or given twice', async () => {
        const body = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) };
        const odd = await httpError(client.request('POST', `${SOURCE_PATH}?trace=yes`, body));
        expect([odd.status, odd.code]).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
        const twice = await httpError(client.request('POST', `${SOURCE_PATH}?trace=true&trace=true`, body));
        expect([twice.status, twice.code]).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
      });
    });

    describe('authentication and roles', () => {
      const body = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) };

      it('refuses a signed VIEWER with 403', async () => {
        const error = await httpError(h.client({ role: 'VIEWER' }).evaluateSource(body));
        expect([error.status, error.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
      });

      it('accepts the roles above MEMBER', async () => {
        const outcome = await h.client({ role: 'ADMIN' }).evaluateSource(body);
        expect(outcome).toMatchObject({ ok: true, result: 3 });
      });

      it('refuses a bad signature, a stale timestamp and an unsigned request with 403', async () => {
        const wrongSecret = await httpError(h.client({ secret: 'not-the-tenant-secret-0000000000' }).evaluateSource(body));
        expect([wrongSecret.status, wrongSecret.code]).toEqual([403, 'ERR_AUTH_SIGNATURE_INVALID']);
        const stale = await httpError(h.client({ now: () => Date.now() - 10 * 60_000 }).evaluateSource(body));
        expect([stale.status, stale.code]).toEqual([403, 'ERR_AUTH_TIMESTAMP_STALE']);
        const unsigned = await rawPost(h, SOURCE_PATH, JSON.stringify(body), { sign: false, headers: { 'x-tenant-id': h.tenantId, 'x-user-role': 'MEMBER' } });
        expect([unsigned.status, unsigned.body.code]).toEqual([403, 'ERR_AUTH_SIGNATURE_MISSING']);
      });

      it('refuses a replayed request with 403', async () => {
        const text = JSON.stringify(body);
        const headers = signRequest({ method: 'POST', pathWithQuery: SOURCE_PATH, body: text, tenantId: h.tenantId, role: 'MEMBER', secret: h.secret });
        const first = await rawPost(h, SOURCE_PATH, text, { sign: false, headers });
        expect(first.status).toBe(200);
        const replay = await rawPost(h, SOURCE_PATH, text, { sign: false, headers });
        expect([replay.status, replay.body.code]).toEqual([403, 'ERR_AUTH_NONCE_REUSED']);
      });

      it('accepts a MEMBER bearer token instead of a signature and audits its subject', async () => {
        const token = await h.token(['MEMBER'], { sub: 'bob' });
        const bearerClient = h.client({ secret: undefined, bearerToken: token });
        const outcome = await bearerClient.evaluateSource({ ...body, functionName: 'price', context: priceContext(50, 1, 7) });
        expect(outcome).toMatchObject({ ok: true, result: 21 });
        const records = await h.sourceEvaluations();
        expect(records.at(-1)).toMatchObject({ actorId: 'bob', policyFunction: 'price', payload: { success: true } });
      });

      it('refuses bearer tokens that are invalid, of another tenant, or below MEMBER', async () => {
        const viewer = await httpError(h.client({ secret: undefined, bearerToken: await h.token(['VIEWER']) }).evaluateSource(body));
        expect([viewer.status, viewer.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
        const otherTenant = await httpError(h.client({ secret: undefined, bearerToken: await h.token(['MEMBER'], { tenant: 'someone-else' }) }).evaluateSource(body));
        expect([otherTenant.status, otherTenant.code]).toEqual([403, 'ERR_AUTH_TENANT_MISMATCH']);
        const foreignKey = await httpError(h.client({ secret: undefined, bearerToken: await h.token(['MEMBER'], { ring: newKeyRing() }) }).evaluateSource(body));
        expect(foreignKey.status).toBe(401);
        const overclaim = await httpError(h.client({ secret: undefined, role: 'ADMIN', bearerToken: await h.token(['MEMBER']) }).evaluateSource(body));
        expect([overclaim.status, overclaim.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
        const viewerHeader = await httpError(h.client({ secret: undefined, role: 'VIEWER', bearerToken: await h.token(['ADMIN']) }).evaluateSource(body));
        expect([viewerHeader.status, viewerHeader.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
      });
    });

    describe('decision trace', () => {
      const body = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 720, 4), locale: 'en-US' };

      it('comes back with ?trace=true, in evaluation order', async () => {
        const response = await client.request<Record<string, unknown>>('POST', `${SOURCE_PATH}?trace=true`, body);
        const trace = response.body.trace as Array<Record<string, unknown>>;
        expect(response.body.result).toBe(8);
        expect(trace.map((entry) => [entry.kind, entry.value])).toEqual([
          ['if', false],
          ['if', true],
          ['return', 8],
        ]);
        expect(trace[2]).toMatchObject({ rule: 'price', text: 'amount times 2', span: { line: 9 } });
      });

      it('is absent without the parameter and with trace=false', async () => {
        const plain = await client.request<Record<string, unknown>>('POST', SOURCE_PATH, body);
        const off = await client.request<Record<string, unknown>>('POST', `${SOURCE_PATH}?trace=false`, body);
        expect('trace' in plain.body).toBe(false);
        expect('trace' in off.body).toBe(false);
      });
    });
  });

  describe('POST /api/v1/policies/evaluate-source/batch', () => {
    it('answers every item in input order, each succeeding or failing on its own, in one dispatch', async () => {
      const items = Array.from({ length: 40 }, (_, i) =>
        i % 5 === 4
          ? { source: PRICING_SOURCE, functionName: 'price', context: priceContext(10, 0, i), locale: 'en-US' }
          : { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, i % 2 === 0 ? 800 : 100, i), locale: 'en-US' },
      );
      const callsBefore = h.dispatchCalls.length;
      const outcome = await client.evaluateBatch(items);
      expect(outcome.status).toBe(200);
      expect(outcome.results.map((r) => (r.ok ? r.result : r.code))).toEqual(
        items.map((_, i) => (i % 5 === 4 ? 'PL3004' : i * (i % 2 === 0 ? 2 : 3))),
      );
      expect(h.dispatchCalls.slice(callsBefore)).toEqual([40]);
    });

    it('mixes sources, locales and failure kinds without one item affecting another', async () => {
      const outcome = await client.evaluateBatch([
        { source: BROKEN_SOURCE, functionName: 'f', context: {} },
        { source: GERMAN_SOURCE, functionName: 'doppelt', context: { x: 5 }, locale: 'de-DE' },
        { source: PRICING_SOURCE, functionName: 'nope', context: {} },
        { source: RUNAWAY_SOURCE, functionName: 'spin', context: runawayContext() },
        { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 2), locale: 'xx' },
        { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 2) },
      ]);
      expect(outcome.results.map((r) => (r.ok ? r.result : r.code))).toEqual(['PL1007', 10, 'PL6002', 'PL4004', 'PL6001', 6]);
      for (const result of outcome.results) {
        expect(Array.isArray(result.raw.diagnostics)).toBe(true);
      }
    });

    it('fails a malformed item on its own with ERR_EVALUATION_ITEM_INVALID', async () => {
      const response = await client.request<{ results: Array<Record<string, unknown>> }>('POST', BATCH_PATH, {
        items: [
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) },
          { source: PRICING_SOURCE, context: {} },
          'not an object',
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 2), extra: true },
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 3) },
        ],
      });
      const [first, missing, scalar, extra, last] = response.body.results;
      expect(first).toMatchObject({ result: 3, error: null });
      expect(missing).toEqual({
        result: null,
        error: '`items[1].functionName` is required',
        executionTimeMs: 0,
        code: 'ERR_EVALUATION_ITEM_INVALID',
        diagnostics: [],
        // Refused before it was evaluated: nothing was recorded for it.
        auditRecordId: null,
        auditContentHash: null,
      });
      expect(scalar).toMatchObject({ result: null, code: 'ERR_EVALUATION_ITEM_INVALID', error: expect.stringMatching(/^items\[2\] must be a JSON object/) });
      expect(extra).toMatchObject({ code: 'ERR_EVALUATION_ITEM_INVALID', error: expect.stringContaining('unknown field `extra`') });
      expect(last).toMatchObject({ result: 9, error: null });
    });

    it('fails a reference to a module the tenant does not have per item', async () => {
      const response = await client.request<{ results: Array<Record<string, unknown>> }>('POST', BATCH_PATH, {
        items: [
          { policyModule: 'com.acme.lending', policyFunction: 'evaluate', version: 2, context: {} },
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 4) },
          { policyModule: 'com.acme.lending', context: {} },
        ],
      });
      const [stored, source, incomplete] = response.body.results;
      expect(stored).toMatchObject({ result: null, code: 'ERR_POLICY_NOT_FOUND', error: 'no policy module `com.acme.lending`', executionTimeMs: 0 });
      expect(source).toMatchObject({ result: 12, error: null });
      expect(incomplete).toMatchObject({ code: 'ERR_EVALUATION_ITEM_INVALID', error: '`items[2].policyFunction` is required' });
    });

    it('adds the trace to every evaluated item with ?trace=true', async () => {
      const response = await client.request<{ results: Array<Record<string, unknown>> }>('POST', `${BATCH_PATH}?trace=true`, {
        items: [
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) },
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(3, 1, 1) },
        ],
      });
      const [ok, failed] = response.body.results;
      expect((ok!.trace as unknown[]).length).toBeGreaterThan(0);
      expect((failed!.trace as Array<Record<string, unknown>>).at(-1)).toMatchObject({ kind: 'fail' });
    });

    it('refuses a malformed envelope and batches outside 1..EVALUATE_BATCH_MAX_ITEMS with 400', async () => {
      const item = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) };
      const noItems = await httpError(client.request('POST', BATCH_PATH, { entries: [] }));
      expect([noItems.status, noItems.code]).toEqual([400, 'ERR_EVALUATION_REQUEST_INVALID']);
      const notArray = await httpError(client.request('POST', BATCH_PATH, { items: item }));
      expect([notArray.status, notArray.code]).toEqual([400, 'ERR_EVALUATION_REQUEST_INVALID']);
      const empty = await httpError(client.request('POST', BATCH_PATH, { items: [] }));
      expect([empty.status, empty.code]).toEqual([400, 'ERR_EVALUATION_BATCH_SIZE_INVALID']);
      const callsBefore = h.dispatchCalls.length;
      const tooMany = await httpError(client.evaluateBatch(Array.from({ length: 1001 }, () => item)));
      expect([tooMany.status, tooMany.code]).toEqual([400, 'ERR_EVALUATION_BATCH_SIZE_INVALID']);
      expect(tooMany.message).toContain('1 to 1000');
      expect(h.dispatchCalls.length).toBe(callsBefore);
      const atLimit = await client.evaluateBatch(Array.from({ length: 1000 }, () => item));
      expect(atLimit.results.every((r) => r.ok && r.result === 3)).toBe(true);
    });
  });

  describe('audit of source evaluations', () => {
    it('stores a SOURCE_EVALUATED record for each evaluation before answering', async () => {
      const actorId = `signed:${h.tenantId}`;
      const before = (await h.sourceEvaluations()).length;
      const ok = await client.evaluateSource({ source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 2), locale: 'en' });
      // No flush: the answer leaves only once its record is in the store.
      const afterOk = await h.sourceEvaluations();
      expect(afterOk.length).toBe(before + 1);
      expect(afterOk.at(-1)).toMatchObject({
        eventType: 'SOURCE_EVALUATED',
        policyModule: PRICING_MODULE,
        policyFunction: 'price',
        actorId,
        payload: { sourceHash: sha256(PRICING_SOURCE), functionName: 'price', locale: 'en', success: true, executionTimeMs: ok.executionTimeMs },
      });
      expect('error' in afterOk.at(-1)!.payload).toBe(false);

      const broken = await client.evaluateSource({ source: BROKEN_SOURCE, functionName: 'f', context: {} });
      const runtime = await client.evaluateSource({ source: PRICING_SOURCE, functionName: 'price', context: priceContext(1, 1, 1) });
      const records = await h.sourceEvaluations();
      expect(records.slice(-2)).toMatchObject([
        {
          policyModule: null,
          policyFunction: 'f',
          payload: { sourceHash: sha256(BROKEN_SOURCE), locale: 'en-US', success: false, error: broken.ok ? null : broken.error },
        },
        { policyModule: PRICING_MODULE, payload: { success: false, error: runtime.ok ? null : runtime.error } },
      ]);
    });

    it('stores one record per evaluated batch item, none for items that were not evaluated', async () => {
      const before = (await h.sourceEvaluations()).length;
      await client.request('POST', BATCH_PATH, {
        items: [
          { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 1) },
          { source: PRICING_SOURCE },
          { policyModule: 'm', policyFunction: 'f', context: {} },
          { source: GERMAN_SOURCE, functionName: 'doppelt', context: { x: 1 }, locale: 'de' },
        ],
      });
      const added = (await h.sourceEvaluations()).slice(before);
      expect(added.map((r) => [r.policyModule, r.policyFunction, r.payload.success])).toEqual([
        [PRICING_MODULE, 'price', true],
        ['test.preis', 'doppelt', true],
      ]);
    });

    it('records nothing for refused requests, and the chain stays valid', async () => {
      const before = (await h.sourceEvaluations()).length;
      await httpError(h.client({ role: 'VIEWER' }).evaluateSource({ source: PRICING_SOURCE, functionName: 'price', context: {} }));
      await httpError(client.request('POST', SOURCE_PATH, { source: PRICING_SOURCE }));
      expect((await h.sourceEvaluations()).length).toBe(before);
      const verification = await verifyChain(h.store.audit, h.tenantId);
      // Every record of this tenant's chain is one of its source evaluations.
      expect(verification).toMatchObject({ valid: true, checked: before });
    });
  });
}

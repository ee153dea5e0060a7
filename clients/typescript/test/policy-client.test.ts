import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/auth/request-signature.js';
import { createPolicyClient, PolicyHttpError, PolicyNetworkError, PolicyProtocolError, type PolicyClientOptions } from '../src/index.js';

interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const SECRET = 'client-test-secret';
const START_MS = Date.parse('2026-03-01T10:00:00Z');

let server: Server;
let baseUrl: string;
let script: Scripted[] = [];
let received: Recorded[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const next = script.shift() ?? { status: 599, body: { error: 'test server script exhausted' } };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  script = [];
  received = [];
});

/** A client on a fake clock: sleeping advances the clock instead of waiting. */
function makeClient(overrides: Partial<PolicyClientOptions> = {}) {
  let clock = START_MS;
  const sleeps: number[] = [];
  const client = createPolicyClient({
    baseUrl,
    tenantId: 'acme',
    role: 'MEMBER',
    secret: SECRET,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...overrides,
  });
  return { client, sleeps };
}

function verifyRecorded(request: Recorded) {
  return verifySignature({
    method: request.method,
    pathWithQuery: request.url,
    body: request.body,
    tenantId: String(request.headers['x-tenant-id']),
    role: String(request.headers['x-user-role']),
    timestamp: request.headers['x-policy-timestamp'] as string,
    nonce: request.headers['x-policy-nonce'] as string,
    signatureHeader: request.headers['x-policy-signature'] as string,
    secrets: [SECRET],
    nowSeconds: Number(request.headers['x-policy-timestamp']),
  });
}

const ENVELOPE_OK = { result: { approved: true }, error: null, executionTimeMs: 3 };
const EVALUATE = { source: 'policy text', functionName: 'approve', context: { amount: 10 }, locale: 'en' };

describe('policy client: signing', () => {
  it('signs the exact bytes it sends, with the path and query fetch puts on the wire', async () => {
    script = [{ status: 200, body: { ok: 1 } }];
    const { client } = makeClient();
    const response = await client.request('post', '/api/v1/things?b=2&a=ü', { name: 'Zoë', n: [1, 2] });
    expect(response).toMatchObject({ status: 200, body: { ok: 1 }, attempts: 1 });
    const [sent] = received;
    expect(sent!.method).toBe('POST');
    expect(sent!.url).toBe('/api/v1/things?b=2&a=%C3%BC');
    expect(JSON.parse(sent!.body.toString('utf8'))).toEqual({ name: 'Zoë', n: [1, 2] });
    expect(sent!.headers['content-type']).toBe('application/json');
    expect(sent!.headers['x-policy-timestamp']).toBe(String(START_MS / 1000));
    expect(verifyRecorded(sent!)).toMatchObject({ ok: true });
  });

  it('signs requests without a body over the empty string', async () => {
    script = [{ status: 200, body: [] }];
    const { client } = makeClient();
    await client.request('GET', '/api/v1/workflows/w-1/events?fromSeq=3');
    expect(received[0]!.body.length).toBe(0);
    expect(received[0]!.headers['content-type']).toBeUndefined();
    expect(verifyRecorded(received[0]!)).toMatchObject({ ok: true });
  });

  it('sends a bearer token and no signature when it has no secret', async () => {
    script = [{ status: 202 }];
    const { client } = makeClient({ secret: undefined, bearerToken: 'tok-123', role: 'ADMIN' });
    const response = await client.request('POST', '/api/v1/audit/anomalies/a-1/actions/verify');
    expect(response).toMatchObject({ status: 202, body: null });
    expect(received[0]!.headers).toMatchObject({ authorization: 'Bearer tok-123', 'x-tenant-id': 'acme', 'x-user-role': 'ADMIN' });
    expect(received[0]!.headers['x-policy-signature']).toBeUndefined();
  });

  it('refuses a relative path and a bad base URL', async () => {
    const { client } = makeClient();
    await expect(client.request('GET', 'graphql')).rejects.toThrow(/must start with '\/'/);
    expect(() => createPolicyClient({ baseUrl: 'not a url', tenantId: 'acme', role: 'MEMBER' })).toThrow();
  });
});

describe('policy client: retries', () => {
  it('honours Retry-After on 429 and signs the retry afresh', async () => {
    script = [
      { status: 429, body: { result: null, error: 'rate limit exceeded: retry in 2 s', executionTimeMs: 0 }, headers: { 'retry-after': '2' } },
      { status: 200, body: ENVELOPE_OK },
    ];
    const { client, sleeps } = makeClient({ random: () => 0 });
    const outcome = await client.evaluateSource(EVALUATE);
    expect(outcome).toMatchObject({ ok: true, result: { approved: true }, attempts: 2 });
    expect(sleeps).toEqual([2_000]);
    expect(received).toHaveLength(2);
    const [first, second] = received;
    expect(first!.headers['x-policy-nonce']).not.toBe(second!.headers['x-policy-nonce']);
    expect(Number(second!.headers['x-policy-timestamp']) - Number(first!.headers['x-policy-timestamp'])).toBe(2);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(verifyRecorded(first!)).toMatchObject({ ok: true });
    expect(verifyRecorded(second!)).toMatchObject({ ok: true });
  });

  it('never retries a 429 earlier than an HTTP-date Retry-After', async () => {
    const at = new Date(START_MS + 5_000).toUTCString();
    script = [{ status: 429, headers: { 'retry-after': at }, body: { error: 'slow down' } }, { status: 200, body: ENVELOPE_OK }];
    const { client, sleeps } = makeClient({ random: () => 0.9 });
    await client.evaluateSource(EVALUATE);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(5_000);
    expect(sleeps[0]).toBeLessThan(5_000 + 100);
  });

  it('hands back a 429 whose Retry-After is beyond the limit, without waiting', async () => {
    script = [{ status: 429, headers: { 'retry-after': '600' }, body: { result: null, error: 'rate limit exceeded: retry in 600 s', executionTimeMs: 0, code: 'ERR_RATE_LIMITED' } }];
    const { client, sleeps } = makeClient();
    const error = await client.evaluateSource(EVALUATE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyHttpError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 600, attempts: 1, code: 'ERR_RATE_LIMITED' });
    expect((error as Error).message).toBe('POST /api/v1/policies/evaluate-source answered 429: rate limit exceeded: retry in 600 s');
    expect(sleeps).toEqual([]);
  });

  it('backs off exponentially on 500 and succeeds when the server recovers', async () => {
    script = [
      { status: 500, body: { result: null, error: 'internal error (ref 1)', executionTimeMs: 0 } },
      { status: 500, body: { result: null, error: 'internal error (ref 2)', executionTimeMs: 0 } },
      { status: 200, body: ENVELOPE_OK },
    ];
    const { client, sleeps } = makeClient({ retryPolicy: { baseDelayMs: 200 }, random: () => 0 });
    const outcome = await client.evaluateSource(EVALUATE);
    expect(outcome).toMatchObject({ ok: true, attempts: 3 });
    expect(sleeps).toEqual([100, 200]);
    expect(new Set(received.map((r) => r.headers['x-policy-nonce'])).size).toBe(3);
  });

  it('gives up after the bounded number of attempts, with jittered growing delays', async () => {
    script = Array.from({ length: 5 }, (_, i) => ({ status: 500, body: { result: null, error: `internal error (ref ${i})`, executionTimeMs: 0 } }));
    const { client, sleeps } = makeClient({ retries: 3, retryPolicy: { baseDelayMs: 100, maxDelayMs: 10_000 } });
    const error = await client.request('POST', '/graphql', { query: '{ listPolicies { id } }' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PolicyHttpError', status: 500, attempts: 4 });
    expect((error as Error).message).toContain('internal error (ref 3)');
    expect(received).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    sleeps.forEach((delay, i) => {
      const step = 100 * 2 ** i;
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    });
  });

  it('retries 503 from a proxy, which carries no envelope', async () => {
    script = [{ status: 503, body: 'upstream unavailable' }, { status: 200, body: { ok: true } }];
    const { client } = makeClient({ random: () => 0 });
    expect(await client.request('GET', '/health')).toMatchObject({ status: 200, attempts: 2 });
  });

  it.each([
    [400, 'ERR_TENANT_HEADER_MISSING'],
    [401, 'ERR_AUTH_TOKEN_INVALID'],
    [403, 'ERR_AUTH_NONCE_REUSED'],
    [404, 'ERR_ANOMALY_NOT_FOUND'],
    [409, 'ERR_ANOMALY_TRANSITION'],
  ])('does not retry %i', async (status, code) => {
    script = [
      { status, body: { result: null, error: `refused with ${code}`, executionTimeMs: 0, code } },
      { status: 200, body: ENVELOPE_OK },
    ];
    const { client, sleeps } = makeClient();
    const error = await client.evaluateSource(EVALUATE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyHttpError);
    expect(error).toMatchObject({ status, code, attempts: 1, retryAfterSeconds: null, body: { error: `refused with ${code}` } });
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry when retries are off', async () => {
    script = [{ status: 500, body: { error: 'boom' } }];
    const { client } = makeClient({ retries: 0 });
    await expect(client.request('GET', '/x')).rejects.toMatchObject({ status: 500, attempts: 1 });
  });

  it('reports a refused connection as a network error, once', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let calls = 0;
    const { client } = makeClient({
      baseUrl: `http://127.0.0.1:${port}`,
      fetch: (input, init) => {
        calls += 1;
        return fetch(input, init);
      },
    });
    await expect(client.request('GET', '/graphql')).rejects.toBeInstanceOf(PolicyNetworkError);
    expect(calls).toBe(1);
  });
});

describe('policy client: status and error both checked', () => {
  it('reports a 200 with a non-null error as a failed evaluation, not a success', async () => {
    script = [{ status: 200, body: { result: null, error: 'function `aprove` not found; did you mean `approve`?', executionTimeMs: 1.5, code: 'ERR_EVAL_FUNCTION_NOT_FOUND' } }];
    const { client, sleeps } = makeClient();
    const outcome = await client.evaluateSource(EVALUATE);
    expect(outcome).toEqual({
      ok: false,
      error: 'function `aprove` not found; did you mean `approve`?',
      code: 'ERR_EVAL_FUNCTION_NOT_FOUND',
      executionTimeMs: 1.5,
      receipt: null,
      raw: { result: null, error: 'function `aprove` not found; did you mean `approve`?', executionTimeMs: 1.5, code: 'ERR_EVAL_FUNCTION_NOT_FOUND' },
      status: 200,
      attempts: 1,
    });
    expect(sleeps).toEqual([]);
  });

  it('reports a 200 with a null error as a success carrying the result', async () => {
    script = [{ status: 200, body: ENVELOPE_OK }];
    const { client } = makeClient();
    const outcome = await client.evaluateSource<{ approved: boolean }>(EVALUATE);
    expect(outcome).toMatchObject({ ok: true, result: { approved: true }, executionTimeMs: 3, status: 200 });
    expect(JSON.parse(received[0]!.body.toString())).toEqual(EVALUATE);
    expect(received[0]!.url).toBe('/api/v1/policies/evaluate-source');
  });

  it('treats a success without the envelope fields as a protocol error', async () => {
    script = [{ status: 200, body: { result: 1 } }, { status: 200, body: 'not json at all' }];
    const { client } = makeClient();
    await expect(client.evaluateSource(EVALUATE)).rejects.toThrow(PolicyProtocolError);
    await expect(client.evaluateSource(EVALUATE)).rejects.toThrow(/not JSON/);
  });

  it('lets each batch item succeed or fail on its own', async () => {
    script = [
      {
        status: 200,
        body: {
          results: [
            { result: 42, error: null, executionTimeMs: 1 },
            { result: null, error: 'type mismatch: `amount` must be a number', executionTimeMs: 0.5 },
          ],
        },
      },
    ];
    const { client } = makeClient({ batchPath: '/api/v1/policies/evaluate-batch' });
    const second = { ...EVALUATE, context: { amount: 'ten' } };
    const outcome = await client.evaluateBatch([EVALUATE, second]);
    expect(outcome.results.map((r) => r.ok)).toEqual([true, false]);
    expect(outcome.results[0]).toMatchObject({ result: 42 });
    expect(outcome.results[1]).toMatchObject({ error: 'type mismatch: `amount` must be a number' });
    expect(received[0]!.url).toBe('/api/v1/policies/evaluate-batch');
    expect(JSON.parse(received[0]!.body.toString())).toEqual({ items: [EVALUATE, second] });
  });

  it('refuses a batch answer that does not match the request item for item', async () => {
    script = [{ status: 200, body: { results: [{ result: 1, error: null, executionTimeMs: 1 }] } }];
    const { client } = makeClient();
    await expect(client.evaluateBatch([EVALUATE, EVALUATE])).rejects.toThrow(/one item per evaluation \(2\)/);
  });

  it('reports GraphQL errors in a 200 as a failure, keeping partial data', async () => {
    script = [
      { status: 200, body: { data: { a: 1, b: null }, errors: [{ message: 'policy not found', path: ['b'] }] } },
      { status: 200, body: { data: { listPolicies: [] } } },
    ];
    const { client } = makeClient();
    const failed = await client.graphql('query Q($id: ID!) { a b: getPolicy(id: $id) { id } }', { id: 'p-1' }, { operationName: 'Q' });
    expect(failed).toEqual({ ok: false, data: { a: 1, b: null }, errors: [{ message: 'policy not found', path: ['b'] }], extensions: null, receipts: {}, status: 200, attempts: 1 });
    expect(JSON.parse(received[0]!.body.toString())).toEqual({
      query: 'query Q($id: ID!) { a b: getPolicy(id: $id) { id } }',
      variables: { id: 'p-1' },
      operationName: 'Q',
    });
    const passed = await client.graphql('{ listPolicies { id } }');
    expect(passed).toEqual({ ok: true, data: { listPolicies: [] }, extensions: null, receipts: {}, status: 200, attempts: 1 });
    expect(JSON.parse(received[1]!.body.toString())).toEqual({ query: '{ listPolicies { id } }' });
  });

  it('throws for a GraphQL request the server rejects with 400, with the first error as message', async () => {
    script = [{ status: 400, body: { errors: [{ message: 'Cannot query field "nope" on type "Query".' }] } }];
    const { client } = makeClient();
    await expect(client.graphql('{ nope }')).rejects.toThrow('POST /graphql answered 400: Cannot query field "nope" on type "Query".');
  });
});

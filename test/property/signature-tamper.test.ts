// A signed request whose received form differs from what was signed by a single byte in any signed
// field — method, path, query, timestamp, nonce, tenant, role or body — is refused; the unchanged
// request is accepted. First on the verification function itself over arbitrary requests, then
// through the signed-request middleware of the service's HTTP stack, where a refused request must
// leave nothing behind (no audit record, no nonce used up).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluationRoutes } from '../../src/api/index.js';
import { createNonceGuard, ROLES } from '../../src/auth/index.js';
import { canonicalString, computeSignature, NONCE_PATTERN, signRequest, verifySignature } from '../../src/auth/request-signature.js';
import { createEnginePool, type EnginePool } from '../../src/engine/index.js';
import { createEvaluationDispatcher, type EvaluationDispatcher } from '../../src/evaluation/index.js';
import { createLocalBatchTransport } from '../../src/jobs/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import {
  buildEvaluationStack,
  connectRedis,
  createTestApp,
  listen,
  newKeyRing,
  registerTenant,
  removeRedisPrefix,
  type EvaluationStack,
  type HttpListener,
  type TenantInfo,
} from '../support/index.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);
// Each HTTP run is two requests, one evaluation and two audit flushes.
const HTTP_RUNS = Math.max(20, Math.floor(RUNS / 10));

const SIGNED_FIELDS = ['method', 'path', 'query', 'timestamp', 'nonce', 'tenantId', 'role', 'body'] as const;
type SignedField = (typeof SIGNED_FIELDS)[number];

/** A request as the server receives it: every field the signature covers, the target split in two. */
interface ReceivedRequest {
  method: string;
  path: string;
  /** Without the `?`; null when the target has none. */
  query: string | null;
  timestamp: string;
  nonce: string;
  tenantId: string;
  role: string;
  body: Uint8Array;
}

/** Where to change one byte: the field, a position in it (taken modulo its length) and the new byte. */
interface Tamper {
  field: SignedField;
  position: number;
  byte: number;
}

const CR = 0x0d;
const LF = 0x0a;

const pathWithQuery = (request: ReceivedRequest) => (request.query === null ? request.path : `${request.path}?${request.query}`);

function lengthOf(request: ReceivedRequest, field: SignedField): number {
  const value = request[field];
  return value === null ? 0 : value.length;
}

/**
 * The request with one byte replaced, or null when that replacement is no change to what is signed:
 * the same byte; CR or LF in a text field (no request line or header can carry them, and the
 * canonical string refuses them outright); a method letter changed only in case (the canonical form
 * is uppercase, and Node hands the server uppercase methods only).
 */
function tampered(request: ReceivedRequest, { field, position, byte }: Tamper): ReceivedRequest | null {
  const length = lengthOf(request, field);
  if (length === 0) return null;
  const at = position % length;
  if (field === 'body') {
    if (request.body[at] === byte) return null;
    const body = Uint8Array.from(request.body);
    body[at] = byte;
    return { ...request, body };
  }
  const text = request[field]!;
  if (text.charCodeAt(at) === byte || byte === CR || byte === LF) return null;
  const changed = `${text.slice(0, at)}${String.fromCharCode(byte)}${text.slice(at + 1)}`;
  if (field === 'method' && changed.toUpperCase() === text.toUpperCase()) return null;
  return { ...request, [field]: changed };
}

/** The arguments of verifySignature for a received request and its signature header. */
function verification(request: ReceivedRequest, signatureHeader: string, secrets: readonly string[], nowSeconds: number) {
  return {
    method: request.method,
    pathWithQuery: pathWithQuery(request),
    body: request.body,
    tenantId: request.tenantId,
    role: request.role,
    timestamp: request.timestamp,
    nonce: request.nonce,
    signatureHeader,
    secrets,
    nowSeconds,
    // A window no timestamp leaves: a changed timestamp must be caught by the signature itself.
    windowSeconds: Number.MAX_SAFE_INTEGER,
  };
}

const PATH_CHARS = fc.constantFrom(...'abcxyzABCXYZ0189-._~%!$&\'()*+,;=:@/');
const QUERY_CHARS = fc.constantFrom(...'abcxyzABCXYZ0189-._~%!$&\'()*+,;=:@/?');
const TENANT = fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/);
const NONCE = fc.stringMatching(NONCE_PATTERN);
const TAMPER: fc.Arbitrary<Tamper> = fc.record({
  field: fc.constantFrom(...SIGNED_FIELDS),
  position: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
});

const anyRequest: fc.Arbitrary<ReceivedRequest> = fc.record({
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), fc.stringMatching(/^[A-Z]{1,12}$/)),
  path: fc.string({ unit: PATH_CHARS, maxLength: 60 }).map((rest) => `/${rest}`),
  query: fc.option(fc.string({ unit: QUERY_CHARS, maxLength: 60 })),
  timestamp: fc.integer({ min: 0, max: 999_999_999_999 }).map(String),
  nonce: NONCE,
  tenantId: TENANT,
  role: fc.constantFrom(...ROLES),
  body: fc.uint8Array({ maxLength: 300 }),
});

/** The tenant's active secrets, newest first, and the one the client signed with (either is valid). */
const SECRETS = fc
  .record({ newest: fc.string({ minLength: 1, maxLength: 64 }), previous: fc.option(fc.string({ minLength: 1, maxLength: 64 })), signWithPrevious: fc.boolean() })
  .filter(({ newest, previous }) => newest !== previous)
  .map(({ newest, previous, signWithPrevious }) => ({
    secrets: previous === null ? [newest] : [newest, previous],
    signingSecret: previous !== null && signWithPrevious ? previous : newest,
  }));

describe('one byte changed in a signed field, at the verification function', () => {
  it(`refuses the changed request and accepts the unchanged one (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(anyRequest, SECRETS, TAMPER, (request, { secrets, signingSecret }, tamper) => {
        const changed = tampered(request, tamper);
        fc.pre(changed !== null);
        const headers = signRequest({
          method: request.method,
          pathWithQuery: pathWithQuery(request),
          body: request.body,
          tenantId: request.tenantId,
          role: request.role,
          secret: signingSecret,
          timestamp: Number(request.timestamp),
          nonce: request.nonce,
        });
        const now = Number(request.timestamp);
        const control = verifySignature(verification(request, headers['X-Policy-Signature'], secrets, now));
        expect(control).toMatchObject({ ok: true, secretIndex: secrets.indexOf(signingSecret) });
        const refused = verifySignature(verification(changed!, headers['X-Policy-Signature'], secrets, now));
        expect(refused).toMatchObject({ ok: false, code: 'ERR_AUTH_SIGNATURE_INVALID' });
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a change at the first and at the last byte of every signed field', () => {
    // The property draws fields and positions at random; this pins the edges of each field.
    const request: ReceivedRequest = {
      method: 'PATCH',
      path: '/api/v1/audit/anomalies/a-1/status',
      query: 'trace=true&x=%2F',
      timestamp: '1700000000',
      nonce: 'n0nce_Example-0123456789',
      tenantId: 'acme-corp',
      role: 'ADMIN',
      body: new TextEncoder().encode('{"status":"DISMISSED"}'),
    };
    const secrets = ['tenant-secret-for-tests-0001'];
    const signature = signRequest({ ...request, pathWithQuery: pathWithQuery(request), timestamp: 1_700_000_000, secret: secrets[0]! })['X-Policy-Signature'];
    expect(verifySignature(verification(request, signature, secrets, 1_700_000_000)).ok).toBe(true);
    for (const field of SIGNED_FIELDS) {
      const last = lengthOf(request, field) - 1;
      for (const position of [0, last]) {
        const changed = tampered(request, { field, position, byte: 0x5f /* _ */ }) ?? tampered(request, { field, position, byte: 0x21 /* ! */ });
        expect(changed, `${field}[${position}]`).not.toBeNull();
        expect(verifySignature(verification(changed!, signature, secrets, 1_700_000_000)), `${field}[${position}]`).toMatchObject({ ok: false });
      }
    }
  });
});

const ECHO = `Module tamper.echo.

Rule echo given words as Text, produce Text:
  Return words.
`;
const ROUTE = '/api/v1/policies/evaluate-source';

describe('one byte changed in a signed field, through the HTTP stack', () => {
  let dir: string;
  let store: Store;
  let redis: Redis;
  let pool: EnginePool;
  let dispatcher: EvaluationDispatcher;
  let stack: EvaluationStack;
  let server: HttpListener;
  let tenants: TenantInfo[];
  const prefix = `test-signature-tamper-${randomUUID()}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pe-signature-tamper-'));
    store = await openSqliteStore(join(dir, 'store.sqlite'));
    tenants = [await registerTenant(store, 'tamper-a'), await registerTenant(store, 'tamper-b')];
    redis = await connectRedis();
    pool = createEnginePool({ threads: 1 });
    dispatcher = createEvaluationDispatcher({ transport: createLocalBatchTransport(pool) });
    stack = await buildEvaluationStack({ store, dispatcher });
    const nonceGuard = createNonceGuard({ redis, keyPrefix: `${prefix}:nonce:` });
    const app = createTestApp({
      store,
      redis,
      keyRing: newKeyRing(),
      prefix,
      routes: [createEvaluationRoutes({ service: stack.evaluation, tenants: store.tenants, nonceGuard, maxBatchItems: 10 })],
    });
    server = await listen(app);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await stack?.flush();
    await dispatcher?.close();
    await stack?.auditTrail.close();
    await pool?.close();
    await removeRedisPrefix(prefix);
    await redis?.quit();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every audit record of the tenant, once the writer has stored what it was given. */
  const auditCount = async (tenantId: string) => {
    await stack.flush();
    return (await store.audit.list(tenantId, { limit: 10_000 })).length;
  };

  const send = (request: ReceivedRequest, signatureHeader: string) =>
    fetch(`${server.baseUrl}${pathWithQuery(request)}`, {
      method: request.method,
      headers: {
        'content-type': 'application/json',
        'x-tenant-id': request.tenantId,
        'x-user-role': request.role,
        'x-policy-timestamp': request.timestamp,
        'x-policy-nonce': request.nonce,
        'x-policy-signature': signatureHeader,
      },
      body: request.body,
    });

  // A suffix no other run has, so that a replayed run (while shrinking) still sends a fresh nonce.
  let sent = 0;
  const freshNonce = (drawn: string) => `${drawn}_${(sent++).toString(36)}`;

  it(`answers 403 ERR_AUTH_SIGNATURE_INVALID with no effect, then accepts the unchanged request (${HTTP_RUNS} runs)`, async () => {
    // The route is fixed (a changed method or path would reach another route, or none), so the byte
    // is changed in what the client signed and the server receives the original: to the server the
    // received request differs from the signed one in exactly that byte.
    const httpRequest = fc.record({
      tenant: fc.constantFrom(...tenants),
      role: fc.constantFrom('MEMBER', 'ADMIN', 'OWNER'),
      query: fc.option(fc.constantFrom('trace=true', 'trace=false', 'trace=false&note=a%2Fb', 'note=x~y')),
      skewSeconds: fc.integer({ min: -250, max: 250 }),
      nonce: fc.stringMatching(/^[A-Za-z0-9_-]{16,100}$/),
      text: fc.string({ unit: 'binary', maxLength: 80 }),
    });
    await fc.assert(
      fc.asyncProperty(httpRequest, TAMPER, async (drawn, tamper) => {
        const request: ReceivedRequest = {
          method: 'POST',
          path: ROUTE,
          query: drawn.query,
          timestamp: String(Math.floor(Date.now() / 1000) + drawn.skewSeconds),
          nonce: freshNonce(drawn.nonce),
          tenantId: drawn.tenant.tenantId,
          role: drawn.role,
          body: new TextEncoder().encode(JSON.stringify({ source: ECHO, functionName: 'echo', context: { words: drawn.text } })),
        };
        const signedCopy = tampered(request, tamper);
        fc.pre(signedCopy !== null);
        const signatureOf = (signed: ReceivedRequest) =>
          `v1=${computeSignature(drawn.tenant.secret, canonicalString({ ...signed, pathWithQuery: pathWithQuery(signed) }))}`;
        const before = await auditCount(request.tenantId);

        const refused = await send(request, signatureOf(signedCopy!));
        const refusal = (await refused.json()) as { code?: string };
        expect([refused.status, refusal.code], `${tamper.field} changed`).toEqual([403, 'ERR_AUTH_SIGNATURE_INVALID']);
        expect(await auditCount(request.tenantId)).toBe(before);

        // The same nonce still works: a refused request used nothing up.
        const accepted = await send(request, signatureOf(request));
        const answer = (await accepted.json()) as { result?: unknown; error?: unknown };
        expect([accepted.status, answer.result, answer.error]).toEqual([200, drawn.text, null]);
        expect(await auditCount(request.tenantId)).toBe(before + 1);
      }),
      { numRuns: HTTP_RUNS },
    );
  }, 180_000);
});

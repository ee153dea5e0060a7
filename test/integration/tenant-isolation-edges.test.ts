// The edges of tenant isolation, against the built service (role `all`: real HTTP, Redis, BullMQ,
// worker threads, SQLite) while a bystander tenant keeps sending ordinary evaluations, which must
// all succeed, each within BYSTANDER_BOUND_MS: GraphQL aliases are charged per decision, a join
// bomb is the language's size error, a signature covers exactly the bytes received, clients'
// errors are logged without stacks, and the queue dashboard is locked down. `npm run build` first.
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtKeyRing, createTokenSigner, type Role } from '../../src/auth/index.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { createPolicyClient, PolicyHttpError, type PolicyClient } from '../../clients/typescript/src/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import {
  assertServiceBuilt,
  describeWithChromium,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
  runService,
  untilLinked,
  type LogLine,
  type ServiceProcess,
  type TenantInfo,
} from '../support/index.js';

/** Quota of every tenant per 60 s window: the GraphQL test spends a tenant's down to the last points. */
const RATE_LIMIT_POINTS = 200;
/**
 * Generous for a loaded 2-core machine shared with other suites: a bystander's evaluation normally
 * answers in milliseconds; a request stalled behind an attack would take seconds.
 */
const BYSTANDER_BOUND_MS = 10_000;

const PRICING = `Module bystander.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

// A text of 2^24 characters (the limit) by doubling, then a list of 33 copies of it, joined: 33 × 2^24
// characters is more than the engine can hold at all, and 31 copies are half a gigabyte.
const JOIN_BOMB = `Module attacker.bomb.

Rule bomb given doublings as List of Int, produce Int:
  Let s be "abcdefgh".
  For each x in doublings:
    Let s be s + s.
  Let parts be [${Array.from({ length: 33 }, () => 's').join(', ')}].
  Return length(join(parts, "")).
`;

const ECHO = `Module attacker.echo.

Rule echo given name as Text, produce Int:
  Return length(name).
`;

const LOAN_DECISION = 'evaluateLoanEligibility(application: $a, applicant: $p) { eligible maxApprovedAmount }';
const LOAN_VARIABLES = {
  a: { requestedAmount: 20000, termMonths: 36, purpose: 'CAR' },
  p: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
};
const aliasedDecisions = (count: number) =>
  `query ($a: LoanApplication!, $p: LoanApplicant!) { ${Array.from({ length: count }, (_, i) => `d${i}: ${LOAN_DECISION}`).join(' ')} }`;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

let dataDir: string;
let env: Record<string, string>;
let service: ServiceProcess;
let base: string;
let port: number;
let tenants: { attacker: TenantInfo; bystander: TenantInfo; quota: TenantInfo };
let attacker: PolicyClient;
let bystander: PolicyClient;
let token: (tenantId: string, role: Role) => Promise<string>;

beforeAll(async () => {
  assertServiceBuilt();
  dataDir = await mkdtemp(join(tmpdir(), 'pe-edges-'));
  const jwtSecret = randomBytes(32).toString('base64url');
  env = {
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: `test-edges-${randomUUID()}`,
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_KEYS: `k1:${jwtSecret}`,
    ENGINE_THREADS: '2',
    RATE_LIMIT_POINTS: String(RATE_LIMIT_POINTS),
    LOG_LEVEL: 'debug',
    ANOMALY_DETECT_INTERVAL_SECONDS: '86400',
  };
  const store = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
  try {
    tenants = {
      attacker: await registerTenant(store, 'attacker'),
      bystander: await registerTenant(store, 'bystander'),
      quota: await registerTenant(store, 'quota'),
    };
  } finally {
    await store.close();
  }
  service = runService([], env);
  port = (await service.waitForLog('api listening')).port as number;
  base = `http://127.0.0.1:${port}`;
  await service.waitForLog('service started');
  const signed = (tenant: TenantInfo) => createPolicyClient({ baseUrl: base, tenantId: tenant.tenantId, role: 'MEMBER', secret: tenant.secret, retries: 0 });
  attacker = signed(tenants.attacker);
  bystander = signed(tenants.bystander);
  const signer = createTokenSigner(createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test'));
  token = (tenantId, role) => signer.sign({ subject: `${role.toLowerCase()}-of-${tenantId}`, tenantId, roles: [role], ttlSeconds: 3600 });
}, 90_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  if (env) await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The bystander's ordinary evaluations, sent while `attack` runs: each answers 200 with its result within the bound. */
async function whileAttacked<T>(attack: () => Promise<T>, count = 6): Promise<T> {
  const bystanderRuns = Promise.all(
    range(count).map(async (i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 50));
      const started = performance.now();
      const outcome = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: i }, locale: 'en-US' });
      return { answer: [outcome.status, outcome.ok ? outcome.result : outcome.error], ms: performance.now() - started };
    }),
  );
  const [result, runs] = await Promise.all([attack(), bystanderRuns]);
  expect(runs.map((run) => run.answer)).toEqual(range(count).map((i) => [200, i * 2]));
  for (const run of runs) expect(run.ms).toBeLessThan(BYSTANDER_BOUND_MS);
  return result;
}

/** The status, error code and RateLimit header of a request that may fail. */
async function answerOf(work: Promise<{ status: number; headers: Headers; body: unknown }>) {
  try {
    const response = await work;
    return { status: response.status, code: null, rateLimit: response.headers.get('ratelimit'), body: response.body as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof PolicyHttpError)) throw error;
    return { status: error.status, code: error.code, rateLimit: null, body: error.body as Record<string, unknown> };
  }
}

/** The `r=` (points remaining) of a RateLimit header. */
const remaining = (header: string | null) => Number(/;r=(\d+)/.exec(header ?? '')?.[1]);

/** POSTs exactly `sent` to evaluate-source, signed over `signed`. */
async function sendSigned(tenant: TenantInfo, signed: Buffer, sent: Buffer) {
  const path = '/api/v1/policies/evaluate-source';
  const headers = signRequest({ method: 'POST', pathWithQuery: path, body: signed, tenantId: tenant.tenantId, role: 'MEMBER', secret: tenant.secret });
  const response = await fetch(base + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: sent });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The tenant's SOURCE_EVALUATED records in its chain, once every record stored so far is linked. */
async function sourceEvaluations(tenant: TenantInfo): Promise<number> {
  const headers = { authorization: `Bearer ${await token(tenant.tenantId, 'ADMIN')}`, 'x-tenant-id': tenant.tenantId };
  // Read from the store, so that waiting spends none of the tenant's rate-limit points.
  const store = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
  try {
    expect(await untilLinked(async () => (await store.auditLinks.unlinkedSummary(tenant.tenantId)).count)).toBe(0);
  } finally {
    await store.close();
  }
  const response = await fetch(`${base}/api/v1/audit/type/SOURCE_EVALUATED?limit=1000`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).length;
}

describe('one tenant’s edge cases cost only that tenant', () => {
  it('charges a GraphQL query one rate-limit point per decision, and refuses whole, spending nothing, what does not fit', async () => {
    const quota = createPolicyClient({ baseUrl: base, tenantId: tenants.quota.tenantId, role: 'MEMBER', secret: tenants.quota.secret, retries: 0 });
    const graphql = (query: string, variables?: Record<string, unknown>) => answerOf(quota.request('POST', '/graphql', { query, ...(variables ? { variables } : {}) }));

    const first = await graphql('{ __typename }');
    expect(first.status).toBe(200);
    expect(remaining(first.rateLimit)).toBe(RATE_LIMIT_POINTS - 1);

    // 30 aliases of one decision: 30 evaluations, 30 points (it was one point for all of them).
    const answers = await whileAttacked(async () => {
      const spent = [];
      for (let i = 0; i < 6; i++) spent.push(await graphql(aliasedDecisions(30), LOAN_VARIABLES));
      return spent;
    });
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const data = (answer.body as { data: Record<string, { eligible: boolean }> }).data;
      expect(Object.keys(data)).toHaveLength(30);
      expect(Object.values(data).every((decision) => decision.eligible === true)).toBe(true);
      expect(remaining(answer.rateLimit)).toBe(RATE_LIMIT_POINTS - 1 - 30 * (i + 1));
    }

    // 19 points are left: a query of 30 decisions is refused whole and spends none of them.
    const refused = await graphql(aliasedDecisions(30), LOAN_VARIABLES);
    expect([refused.status, refused.code]).toEqual([429, 'ERR_RATE_LIMIT_EXCEEDED']);
    expect(refused.body.error).toContain('this request needs 30 points (one per evaluation) and 19 remain');
    const fits = await graphql(aliasedDecisions(19), LOAN_VARIABLES);
    expect(fits.status).toBe(200);
    expect(remaining(fits.rateLimit)).toBe(0);
    expect((await graphql('{ __typename }')).status).toBe(429);
  });

  it('answers a join bomb with the language’s size error, built before nothing large is made', async () => {
    const outcome = await whileAttacked(() =>
      attacker.evaluateSource<number>({ source: JOIN_BOMB, functionName: 'bomb', context: { doublings: range(21) }, locale: 'en-US' }),
    );
    expect(outcome.status).toBe(200);
    expect(outcome).toMatchObject({ ok: false, code: 'PL4005' });
    expect(outcome.ok ? '' : outcome.error).toContain('text would be longer than 16777216 characters');
    // The same rule at the limit still answers.
    const atLimit = await attacker.evaluateSource<number>({
      source: JOIN_BOMB.replace(/\[[s, ]+\]/, '[s]'),
      functionName: 'bomb',
      context: { doublings: range(21) },
      locale: 'en-US',
    });
    expect(atLimit).toMatchObject({ ok: true, result: 2 ** 24 });
  });

  it('refuses with 403 a signed body with a byte order mark, or a byte the decoder would replace, added after signing, and audits nothing', async () => {
    // U+FFFD is EF BF BD: a lone 0xFF in its place decodes to it, so the decoded text re-encodes to the signed bytes.
    const signed = Buffer.from(JSON.stringify({ source: ECHO, functionName: 'echo', context: { name: '\uFFFD' }, locale: 'en-US' }), 'utf8');
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const replacement = signed.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    const invalid = Buffer.concat([signed.subarray(0, replacement), Buffer.from([0xff]), signed.subarray(replacement + 3)]);
    const before = await sourceEvaluations(tenants.attacker);

    const [withBom, withInvalid] = await whileAttacked(() =>
      Promise.all([sendSigned(tenants.attacker, signed, Buffer.concat([bom, signed])), sendSigned(tenants.attacker, signed, invalid)]),
    );
    for (const refused of [withBom, withInvalid]) {
      expect(refused).toEqual({
        status: 403,
        body: { result: null, error: 'request signature does not match', executionTimeMs: 0, code: 'ERR_AUTH_SIGNATURE_INVALID' },
      });
    }
    expect(await sourceEvaluations(tenants.attacker)).toBe(before);

    // The bytes as sent, signed as sent, are accepted (a BOM is allowed when it is signed) and audited.
    const signedWithBom = await sendSigned(tenants.attacker, Buffer.concat([bom, signed]), Buffer.concat([bom, signed]));
    expect(signedWithBom).toMatchObject({ status: 200, body: { result: 1, error: null } });
    expect(await sourceEvaluations(tenants.attacker)).toBe(before + 1);
  });

  it('logs requests aborted by unauthenticated clients at debug, with no stack anywhere', async () => {
    const from = service.lines.length;
    const aborted = ['/api/v1/policies/evaluate-source', '/graphql', '/api/v1/policies', '/api/v1/workflows', '/admin/login'].map((path, i) => ({
      path,
      reqId: `aborted-${i}-${randomUUID()}`,
    }));
    await whileAttacked(() =>
      Promise.all(
        aborted.map(
          ({ path, reqId }) =>
            new Promise<void>((resolve, reject) => {
              // A body announced at 1,000 bytes, 6 sent, then the connection closed.
              const socket = connect(port, '127.0.0.1', () => {
                socket.write(
                  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Tenant-Id: acme\r\nX-Request-Id: ${reqId}\r\n\r\n{"a":1`,
                );
                setTimeout(() => socket.destroy(), 300);
              });
              socket.on('close', () => resolve());
              socket.on('error', reject);
            }),
        ),
      ),
    );
    for (const { reqId } of aborted) await service.waitForLog((line) => line.reqId === reqId && line.msg === 'request completed');
    // The answers are written once the request is over; give the failed writes their turn to be logged.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = service.lines.slice(from);
    const ofAborted = (line: LogLine) => aborted.some(({ reqId }) => line.reqId === reqId);
    const withStack = lines.filter((line) => JSON.stringify(line).includes('"stack"'));
    expect(withStack).toEqual([]);
    expect(lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
    // What the client did is still told, at debug: the parser's or the socket's code and its reason.
    const told = lines.filter((line) => ofAborted(line) && line.level === 20);
    expect(told.length).toBeGreaterThan(0);
    for (const line of told) expect(line).toMatchObject({ code: expect.any(String), reason: expect.any(String) });
    expect(lines.filter((line) => ofAborted(line) && line.msg === 'request completed').every((line) => line.level === 30 && line.status === 400)).toBe(true);
  });
});

/** A sign-in from `localAddress` (127.0.0.0/8 is all this host), with the answer's status, headers and body. */
function signInFrom(localAddress: string, tokenText: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams({ token: tokenText }).toString();
    const sent = httpRequest(
      { host: '127.0.0.1', port, path: '/admin/login', method: 'POST', localAddress, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('the queue dashboard', () => {
  const operator = (role: Role) => token('operators', role);

  it('sends a strict Content-Security-Policy and X-Frame-Options: DENY, and links nothing from another origin', async () => {
    const admin = await operator('ADMIN');
    const pages = [
      await fetch(`${base}/admin/login`),
      await fetch(`${base}/admin/queues/`, { headers: { authorization: `Bearer ${await operator('VIEWER')}` } }),
      await fetch(`${base}/admin/queues-admin/`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${base}/admin/queues-admin/queue/workflow-run`, { headers: { authorization: `Bearer ${admin}` } }),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      const html = await page.text();
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      // Bull Board's page linked its fonts from fonts.googleapis.com.
      expect(html).not.toMatch(/fonts\.googleapis|fonts\.gstatic/);
      expect(html.match(/<(?:link|script)\b[^>]*>/gi)?.filter((tag) => /(?:href|src)\s*=\s*["']?(?:https?:)?\/\//i.test(tag)) ?? []).toEqual([]);
    }
    // Files, API answers and refusals carry the headers too.
    const api = await fetch(`${base}/admin/queues-admin/api/queues`, { headers: { authorization: `Bearer ${admin}` } });
    const refused = await fetch(`${base}/admin/queues/api/queues`);
    for (const answer of [api, refused]) {
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('answers a malformed JSON body to a job action with 400 in the envelope, and acts on nothing', async () => {
    const headers = { authorization: `Bearer ${await operator('ADMIN')}`, 'content-type': 'application/json' };
    const malformed = await fetch(`${base}/admin/queues-admin/api/queues/anomaly-verify/pause`, { method: 'PUT', headers, body: '{"not json' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ result: null, executionTimeMs: 0, code: 'ERR_REQUEST_JSON_MALFORMED' });
    const listed = (await (await fetch(`${base}/admin/queues-admin/api/queues`, { headers })).json()) as { queues: Array<{ name: string; isPaused: boolean }> };
    expect(listed.queues.find((queue) => queue.name === 'anomaly-verify')?.isPaused).toBe(false);
    const notJson = await fetch(`${base}/admin/queues-admin/api/queues/anomaly-verify/pause`, { method: 'PUT', headers: { ...headers, 'content-type': 'text/plain' }, body: 'x' });
    expect([notJson.status, ((await notJson.json()) as { code: string }).code]).toEqual([400, 'ERR_REQUEST_CONTENT_TYPE_UNSUPPORTED']);
  });

  it('throttles failed sign-ins per client address: 10 a minute, then 429 with Retry-After, whatever the token', async () => {
    const valid = await operator('VIEWER');
    for (let i = 0; i < 10; i++) expect((await signInFrom('127.0.0.3', `not-a-token-${i}`)).status).toBe(401);
    const throttled = await signInFrom('127.0.0.3', 'not-a-token');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(throttled.body)).toMatchObject({ result: null, executionTimeMs: 0, code: 'ERR_RATE_LIMIT_EXCEEDED' });
    expect(JSON.parse(throttled.body).error).toMatch(/too many failed sign-ins from this address \(10 per 60 s\); retry in \d+ s/);
    expect((await signInFrom('127.0.0.3', valid)).status).toBe(429);
    // Another address is not affected, and its successful sign-ins do not count.
    for (let i = 0; i < 12; i++) expect((await signInFrom('127.0.0.4', valid)).status).toBe(302);
  });
});

describeWithChromium('the queue dashboard in a browser', (executablePath) => {
  it('renders and acts under its Content-Security-Policy, asking no other origin for anything', async () => {
    const admin = await token('operators', 'ADMIN');
    const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(60_000);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' || message.text().startsWith('CSP')) problems.push(`console: ${message.text()}`);
      });
      page.on('request', (sent) => {
        if (!sent.url().startsWith(`${base}/`) && !sent.url().startsWith('data:')) problems.push(`request elsewhere: ${sent.url()}`);
      });
      await page.addInitScript(() =>
        document.addEventListener('securitypolicyviolation', (event) => console.log(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)),
      );
      await page.goto(`${base}/admin/queues-admin/`);
      await page.waitForURL(`${base}/admin/login`);
      await page.getByLabel('Operator token').fill(admin);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/admin/queues-admin/`);
      for (const queue of ['policy-evaluate', 'anomaly-detect', 'anomaly-verify', 'workflow-run']) {
        await expect.poll(() => page.getByRole('link', { name: queue }).count()).toBeGreaterThan(0);
      }
      // Pause a queue through the dashboard's own menu, as an operator would.
      await page.getByRole('link', { name: 'anomaly-verify' }).first().click();
      await page.waitForURL(/\/queue\/anomaly-verify/);
      // Two menus once the queue's page is drawn: the header's (Console, Sign out), then the queue's actions.
      const menus = page.locator('button[aria-haspopup="menu"]');
      await expect.poll(() => menus.count()).toBe(2);
      await menus.last().click();
      await page.getByRole('menuitem', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      const isPaused = async () => {
        const listed = (await (await fetch(`${base}/admin/queues-admin/api/queues`, { headers: { authorization: `Bearer ${admin}` } })).json()) as {
          queues: Array<{ name: string; isPaused: boolean }>;
        };
        return listed.queues.find((queue) => queue.name === 'anomaly-verify')?.isPaused;
      };
      await expect.poll(isPaused, { timeout: 30_000 }).toBe(true);
      expect((await fetch(`${base}/admin/queues-admin/api/queues/anomaly-verify/resume`, { method: 'PUT', headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('afterwards', () => {
  it('the service still answers everyone', async () => {
    expect(service.child.exitCode).toBeNull();
    const outcome = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 50 }, locale: 'en-US' });
    expect(outcome).toMatchObject({ ok: true, result: 100 });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

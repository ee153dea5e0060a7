// Every operation of the service's OpenAPI document, fuzzed over real HTTP against the built service
// (role `all`, SQLite, Redis): requests generated from the document with fast-check and mutated
// (openapi-requests.ts). The fuzzer acts as tenant `fuzzer` with valid credentials, so most requests
// get past authentication and reach validation; tenant `bystander` has a policy, audit records and
// a waiting workflow, and the fuzzer is given their ids. Every answer must be below 500 (nothing is
// down meanwhile, so not even a 503), every error the envelope without internals, every 2xx the documented
// shape, and nothing of the bystander's may show up in any answer or change.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { answerSchemas, buildOpenApiDocument } from '../../src/api/index.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { openSqliteStore } from '../../src/store/index.js';
import { API_OPERATIONS, assertServiceBuilt, REDIS_URL, removeRedisPrefix, runService, SERVICE_ROUTES, seedAnomalies, type ServiceProcess } from '../support/index.js';
import { documentedOperations, fuzzRequest, type FuzzOperation, type GeneratedRequest, type OpenApiDocument, type RequestHints } from './openapi-requests.js';

/** Generated requests per operation; CI runs the default, a longer local run sets more. */
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** Fixed so that CI is repeatable; fast-check prints it with any counterexample. */
const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_260_131);
const BODY_LIMIT_BYTES = 1024 * 1024;
/** No answer within this is a hang (the service's own bounds are all far below it). */
const ANSWER_TIMEOUT_MS = 20_000;

const FUZZER = 'fuzzer';
const BYSTANDER = 'bystander';
/** A third tenant without data: its token is the fuzzer's "token of another tenant". */
const STRANGER = 'stranger';

const FUZZER_MODULE = 'fuzzer.pricing';
const FUZZER_SOURCE = `Module ${FUZZER_MODULE}.

Define Applicant has age as Int, score as Int.

Rule price given amount as Int, produce Int:
  Return amount times 2.

Rule adult given applicant as Applicant, produce Bool:
  Return applicant.age is at least 18.

Workflow onboard given applicant as Applicant:
  Step identity: adult(applicant).
  Step approval: Await "fuzzer-approval" within 48 hours.
`;

const BYSTANDER_MODULE = 'bystander.ledger';
/** Returned by the bystander's rule and stored only in its source: it must never reach the fuzzer. */
const BYSTANDER_SECRET = 'bystander-secret-8c1f29';
const BYSTANDER_SOURCE = `Module ${BYSTANDER_MODULE}.

Define Applicant has age as Int, score as Int.

Rule secretNote given applicant as Applicant, produce Text:
  Return "${BYSTANDER_SECRET}".

Rule adult given applicant as Applicant, produce Bool:
  Return applicant.age is at least 18.

Workflow review given applicant as Applicant:
  Step identity: adult(applicant).
  Step approval: Await "bystander-approval" within 48 hours.
`;
const SIMPLE_SOURCE = 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

interface Credentials {
  fuzzerToken: string;
  fuzzerSecret: string;
  strangerToken: string;
}

/** What must be the same before and after the fuzzing, read as the bystander. */
interface BystanderState {
  audit: unknown;
  verification: unknown;
  versions: unknown;
  policies: unknown;
  workflow: unknown;
  events: unknown;
  settings: unknown;
  anomalies: unknown;
  anomaly: unknown;
}

const document = buildOpenApiDocument(SERVICE_ROUTES) as unknown as OpenApiDocument;
const operations = documentedOperations(document);

describe('REST fuzzing from the OpenAPI document', () => {
  let dir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let port: number;
  let credentials: Credentials;
  let bystanderToken: string;
  let hints: RequestHints;
  let bystanderBefore: BystanderState;
  /** Text that only the bystander's data contains: none of it may appear in an answer to the fuzzer. */
  let bystanderMarkers: string[];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const counts = new Map<string, number>();
  const byClass = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 } as Record<string, number>;
  const graphqlShapedErrors = { count: 0 };

  const base = () => `http://127.0.0.1:${port}`;

  /** A setup call with a bearer token (fetch is fine here: nothing hostile is sent). */
  async function call<T>(token: string, tenantId: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T };
  }

  async function mint(tenant: string, role: string, subject: string): Promise<string> {
    const lines: string[] = [];
    await runTokenCli(['--tenant', tenant, '--role', role, '--sub', subject], { env, out: (l) => lines.push(l), err: () => {} });
    return lines[0]!;
  }

  async function register(tenant: string): Promise<string> {
    const lines: string[] = [];
    await runTenantCli(['create', tenant], { env, out: (l) => lines.push(l), err: () => {} });
    return lines.at(-1)!;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gave up waiting for ${what}`);
  }

  async function bystanderState(workflowId: string, anomalyId: string): Promise<BystanderState> {
    const read = async (path: string) => {
      const answer = await call(bystanderToken, BYSTANDER, 'GET', path);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    return {
      audit: await read('/api/v1/audit?limit=1000'),
      verification: await read('/api/v1/audit/verify'),
      versions: await read(`/api/v1/policies/${BYSTANDER_MODULE}/versions`),
      policies: await read(`/api/v1/policies?policyModule=${BYSTANDER_MODULE}`),
      workflow: await read(`/api/v1/workflows/${workflowId}`),
      events: await read(`/api/v1/workflows/${workflowId}/events`),
      settings: await read('/api/v1/audit/anomaly-settings'),
      anomalies: await read('/api/v1/audit/anomalies?days=3650'),
      anomaly: await read(`/api/v1/audit/anomalies/${anomalyId}`),
    };
  }

  /** Gives each tenant its data: a deployed module, evaluations (audit records) and a waiting workflow. */
  async function seed(token: string, tenantId: string, source: string, module: string, rule: string, workflow: string): Promise<{ workflowId: string; policyId: string }> {
    const deployed = await call<{ version: number }>(token, tenantId, 'POST', '/api/v1/policies', { source });
    expect(deployed.status, `${JSON.stringify(deployed.body)}\n${serverErrors(0)}`).toBe(201);
    const evaluated = await call(token, tenantId, 'POST', '/api/v1/policies/evaluate', { policyModule: module, policyFunction: rule, context: rule === 'price' ? { amount: 2 } : { applicant: { age: 30, score: 1 } } });
    expect(evaluated.status, `${JSON.stringify(evaluated.body)}\n${serverErrors(0)}`).toBe(200);
    const bySource = await call(token, tenantId, 'POST', '/api/v1/policies/evaluate-source', { source: SIMPLE_SOURCE, functionName: 'f', context: { x: 1 } });
    expect(bySource.status).toBe(200);
    const started = await call<{ workflowId: string }>(token, tenantId, 'POST', '/api/v1/workflows', { policyModule: module, workflow, context: { applicant: { age: 30, score: 700 } } });
    expect(started.status, `${JSON.stringify(started.body)}\n${serverErrors(0)}`).toBe(201);
    const workflowId = started.body.workflowId;
    await until(() => call<{ status: string }>(token, tenantId, 'GET', `/api/v1/workflows/${workflowId}`), (a) => a.body.status === 'WAITING', `${tenantId}'s workflow to wait`);
    // The step's audit record is written by the worker: wait for it, so the snapshot is final.
    await until(
      () => call<Array<{ actorId: string }>>(token, tenantId, 'GET', '/api/v1/audit?limit=1000'),
      (a) => a.body.some((record) => record.actorId === `workflow:${workflowId}`),
      `${tenantId}'s workflow step to be audited`,
    );
    return { workflowId, policyId: `${module}.${rule}@${deployed.body.version}` };
  }

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-rest-fuzz-'));
    env = {
      DATA_DIR: dir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `fuzz-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_POINTS: '1000000000',
      BODY_LIMIT: String(BODY_LIMIT_BYTES),
    };
    const fuzzerSecret = await register(FUZZER);
    await register(BYSTANDER);
    // An anomaly each, put in the store before the service starts: detecting one takes an hour of traffic.
    const store = await openSqliteStore(join(dir, 'policy-engine.sqlite'));
    const anomalyOf = async (tenantId: string, policyModule: string) =>
      (await seedAnomalies(store, tenantId, [{ type: 'HIGH_FAILURE_RATE', policyModule, policyFunction: 'adult', version: 1 }]))[0]!.id;
    const fuzzerAnomaly = await anomalyOf(FUZZER, FUZZER_MODULE);
    const bystanderAnomaly = await anomalyOf(BYSTANDER, BYSTANDER_MODULE);
    await store.close();
    service = runService([], env);
    port = (await service.waitForLog('api listening')).port as number;
    credentials = { fuzzerToken: await mint(FUZZER, 'ADMIN', 'fuzzer-admin'), fuzzerSecret, strangerToken: await mint(STRANGER, 'ADMIN', 'stranger-admin') };
    bystanderToken = await mint(BYSTANDER, 'ADMIN', 'bystander-admin-5e0d');

    // What is fuzzed is what the service serves.
    const served = await (await fetch(`${base()}/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(document)));

    const fuzzerData = await seed(credentials.fuzzerToken, FUZZER, FUZZER_SOURCE, FUZZER_MODULE, 'price', 'onboard');
    const bystanderData = await seed(bystanderToken, BYSTANDER, BYSTANDER_SOURCE, BYSTANDER_MODULE, 'secretNote', 'review');
    bystanderBefore = await bystanderState(bystanderData.workflowId, bystanderAnomaly);
    expect(bystanderBefore.verification).toMatchObject({ valid: true });
    const bystanderRecords = bystanderBefore.audit as Array<{ id: string; hash: string }>;
    expect(bystanderRecords.length).toBeGreaterThanOrEqual(4);
    bystanderMarkers = [
      BYSTANDER,
      BYSTANDER_MODULE,
      BYSTANDER_SECRET,
      'bystander-admin-5e0d',
      bystanderData.workflowId,
      bystanderAnomaly,
      ...bystanderRecords.flatMap((record) => [record.id, record.hash]),
      ...(bystanderBefore.versions as { content: Array<{ sourceHash: string }> }).content.map((version) => version.sourceHash),
    ];

    hints = {
      pathParams: {
        id: [fuzzerData.policyId, bystanderData.policyId, 'lending.loan.evaluateLoanEligibility@0'],
        '/api/v1/audit/anomalies/{id}#id': [fuzzerAnomaly, bystanderAnomaly, randomUUID()],
        '/api/v1/audit/anomalies/{id}/actions/verify#id': [fuzzerAnomaly, bystanderAnomaly],
        '/api/v1/audit/anomalies/{id}/status#id': [fuzzerAnomaly, bystanderAnomaly],
        policyModule: [FUZZER_MODULE, BYSTANDER_MODULE, 'lending.loan'],
        policyFunction: ['price', 'secretNote', 'adult', 'evaluateLoanEligibility'],
        workflowId: [fuzzerData.workflowId, bystanderData.workflowId, randomUUID()],
        '/api/v1/policies/{policyModule}/versions/{version}/source#version': ['0', '1', '2', '99', '-1', '1.5'],
        '/api/v1/policies/{policyModule}/versions/{version}#version': ['0', '1', '2', '99', '-1', '1.5'],
      },
      values: {
        source: [FUZZER_SOURCE, SIMPLE_SOURCE, 'Module m.\nRule f given x as Int, produce Int:\n  Fail with "no".\n'],
        functionName: ['f', 'price', 'secretNote', 'prise'],
        context: [{ x: 21 }, { amount: 5 }, [3], { applicant: { age: 30, score: 700 } }, {}],
        locale: ['en-US', 'de-DE', 'zh-CN', 'en', 'xx-YY'],
        policyModule: [FUZZER_MODULE, BYSTANDER_MODULE, 'lending.loan'],
        policyFunction: ['price', 'adult', 'secretNote', 'evaluateLoanEligibility'],
        version: [0, 1, 2, 99],
        startTime: ['2026-01-01T00:00:00Z', new Date(Date.now() - 3_600_000).toISOString()],
        endTime: ['2026-01-01T23:59:00+01:00', new Date(Date.now() + 60_000).toISOString()],
        workflow: ['onboard', 'review'],
        signal: ['fuzzer-approval', 'bystander-approval'],
        note: ['checked', null, '\ud800', 'x'.repeat(2_001)],
        status: ['OPEN', 'RESOLVED', 'DISMISSED', 'VERIFYING', 'ACTIVE', 'SUPERSEDED'],
        query: [
          '{ listPolicies { id policyModule policyFunction version status source } }',
          `{ getPolicy(id: "${bystanderData.policyId}") { id source } }`,
          `{ getPolicy(id: "${fuzzerData.policyId}") { id source } }`,
          '{ evaluateLoanEligibility(application: {requestedAmount: 20000, termMonths: 36, purpose: "CAR"}, applicant: {age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3}) { eligible interestRate } }',
          'query Q($id: ID!) { getPolicy(id: $id) { id } }',
          'mutation { listPolicies { id } }',
          'subscription { listPolicies { id } }',
          '{ __schema { types { name } } }',
          `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: listPolicies { id }`).join(' ')} }`,
          `${'{ listPolicies '.repeat(40)}${'}'.repeat(40)}`,
        ],
        variables: ['{}', `{"id":"${bystanderData.policyId}"}`, '{"id":1}', 'null', '[', { id: bystanderData.policyId }, {}],
        operationName: ['Q'],
        url: ['https://hooks.example.com/in', 'http://hooks.example.com/in', 'https://127.0.0.1/in', 'https://169.254.169.254/latest', 'https://[::ffff:10.0.0.1]/', 'https://u:p@hooks.example.com/', 'not a url'],
        events: [['POLICY_DEPLOYED'], ['WORKFLOW_FAILED', 'ANOMALY_DETECTED'], ['POLICY_DEPLOYED', 'POLICY_DEPLOYED'], ['NOT_AN_EVENT'], []],
        approved: [true, false],
      },
    };
  }, 120_000);

  afterAll(async () => {
    agent.destroy();
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (env?.REDIS_KEY_PREFIX) await removeRedisPrefix(env.REDIS_KEY_PREFIX);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The headers of a generated request, with real credentials applied according to its plan. */
  function wireHeaders(request: GeneratedRequest): Record<string, string | string[]> {
    const { headers: plan, operation } = request;
    const headers = new Map<string, [string, string[]]>();
    const set = (name: string, values: string[]) => headers.set(name.toLowerCase(), [name, values]);

    const tenantValues = { own: [FUZZER], other: [BYSTANDER], missing: [], both: [FUZZER, BYSTANDER], twice: [FUZZER, FUZZER] } as Record<string, string[]>;
    const tenant = plan.tenant.kind === 'value' ? [plan.tenant.value] : tenantValues[plan.tenant.kind]!;
    if (tenant.length > 0) set('X-Tenant-ID', tenant);
    if (request.body !== undefined && plan.contentType !== null) set('Content-Type', [plan.contentType]);

    const kind =
      plan.credentials === 'valid' ? (operation.security === 'signed' ? 'signed' : operation.security === 'none' ? 'none' : 'bearer') : plan.credentials;
    if (kind === 'bearer') set('Authorization', [`Bearer ${credentials.fuzzerToken}`]);
    if (kind === 'other-tenants-token') set('Authorization', [`Bearer ${credentials.strangerToken}`]);
    if (kind === 'garbage-token') {
      const garbage = [`Bearer ${credentials.fuzzerToken.slice(0, -2)}xx`, 'Bearer eyJhbGciOiJub25lIn0.eyJ0ZW5hbnQiOiJmdXp6ZXIiLCJyb2xlcyI6WyJBRE1JTiJdfQ.', `Bearer ${'a'.repeat(4_000)}`, 'Bearer ..', `bearer ${credentials.fuzzerToken}`];
      set('Authorization', [garbage[request.target.length % garbage.length]!]);
    }
    if (kind === 'signed' || kind === 'bad-signature' || kind === 'stale-signature') {
      // Signed as the header's tenant when it is one (with the fuzzer's secret), else as the fuzzer.
      const tenantId = plan.tenant.kind === 'other' ? BYSTANDER : FUZZER;
      const signed: Record<string, string> = signRequest({
        method: request.method,
        pathWithQuery: request.target,
        body: request.body ?? null,
        tenantId,
        role: 'ADMIN',
        secret: credentials.fuzzerSecret,
        ...(kind === 'stale-signature' ? { timestamp: Math.floor(Date.now() / 1000) - 3_600 } : {}),
      });
      if (kind === 'bad-signature') signed['X-Policy-Signature'] = `v1=${'A'.repeat(43)}`;
      for (const [name, value] of Object.entries(signed)) if (name !== 'X-Tenant-Id') set(name, [value]);
    }

    const extraSeen = new Set<string>();
    for (const [name, value] of plan.extra) {
      const key = name.toLowerCase();
      if (extraSeen.has(key)) headers.get(key)![1].push(value);
      else set(name, [value]);
      extraSeen.add(key);
    }
    // Framed explicitly: Node's client sends a GET's body with neither header otherwise.
    if (request.body !== undefined) {
      if (plan.chunked) set('Transfer-Encoding', ['chunked']);
      else set('Content-Length', [String(request.body.length)]);
    }
    return Object.fromEntries([...headers.values()].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
  }

  function send(request: GeneratedRequest, headers: Record<string, string | string[]>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const outgoing = http.request({ host: '127.0.0.1', port, method: request.method, path: request.target, headers, agent }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        // A stream does not end by itself: its first piece (the events there are already) is the answer looked at.
        if (String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          response.once('data', (chunk: Buffer) => {
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text: chunk.toString('utf8') });
            outgoing.destroy();
          });
          response.on('error', () => {});
          return;
        }
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      outgoing.setTimeout(ANSWER_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms (a hang)`)));
      // Once an answer has come, a write the server no longer reads may fail: that is not a finding.
      outgoing.on('error', (error) => {
        if (!answered) reject(error);
      });
      if (request.body === undefined) outgoing.end();
      else if (request.headers.chunked) {
        outgoing.write(request.body);
        outgoing.end();
      } else outgoing.end(request.body);
    });
  }

  /** The documented operation the router gives a method and path to (literal segments win), if any. */
  function answeringOperation(method: string, target: string): FuzzOperation | undefined {
    // The server stops the path at `?` or `#`, and takes one trailing slash as none.
    const segments = target.split(/[?#]/)[0]!.replace(/(.)\/$/, '$1').split('/');
    let best: { operation: FuzzOperation; literals: number } | undefined;
    for (const operation of operations) {
      if (operation.method !== method) continue;
      const template = operation.pathTemplate.split('/');
      if (template.length !== segments.length) continue;
      let literals = 0;
      const fits = template.every((part, i) => {
        if (/^\{.+\}$/.test(part)) return segments[i]!.length > 0;
        literals += 1;
        return part === segments[i];
      });
      if (fits && (best === undefined || literals > best.literals)) best = { operation, literals };
    }
    return best?.operation;
  }

  const ENVELOPE_CODE = /^ERR_[A-Z0-9_]+$/;
  // A stack frame, a module path or this machine's directories: internals an answer must not carry.
  const INTERNALS = [/(?:\n|\\n)\s+at \S/, /\((?:file:\/\/)?\/[^)\s]+:\d+:\d+\)/, /node_modules\//, /node:internal/];

  /** Everything wrong with one answer; empty when it is fine. */
  function findings(request: GeneratedRequest, sentHeaders: Record<string, string | string[]>, answer: Answer): string[] {
    const found: string[] = [];
    const isGraphql = request.target.split(/[?#]/)[0]!.replace(/(.)\/$/, '$1') === '/graphql';
    let body: unknown;
    try {
      body = answer.text === '' ? undefined : JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    const code = (body as { code?: unknown } | undefined)?.code;

    // Nothing is down during the fuzz: even a 503 would be the input's doing.
    if (answer.status >= 500) found.push(`status ${answer.status} ${String(code)} (a 5xx)`);
    if (answer.status >= 400) {
      const type = String(answer.headers['content-type'] ?? '');
      const envelope = answerSchemas.errorEnvelope.safeParse(body);
      const graphqlRequestError = isGraphql && isGraphqlRequestError(body);
      if (graphqlRequestError && !envelope.success) graphqlShapedErrors.count += 1;
      if (!/^application\/(json|graphql-response\+json)\b/.test(type)) found.push(`error answered with content type \`${type}\`, not JSON`);
      if (!graphqlRequestError && (!envelope.success || !ENVELOPE_CODE.test(String(code)))) found.push('error answered without the envelope {result: null, error, executionTimeMs, code: ERR_…}');
    }
    if (answer.status >= 200 && answer.status < 300) {
      const answering = answeringOperation(request.method, request.target);
      if (answering === undefined) found.push('2xx from a path and method no documented operation has');
      else {
        const documented = API_OPERATIONS.find((op) => `${op.method.toUpperCase()} ${op.path}` === answering.key);
        if (documented?.doc.success.schema) {
          const parsed = documented.doc.success.schema.safeParse(body);
          if (!parsed.success) found.push(`2xx does not fit the documented schema of ${answering.key}: ${parsed.error.issues[0]?.message}`);
        }
      }
    }
    for (const pattern of INTERNALS) if (pattern.test(answer.text)) found.push(`answer shows internals (${pattern})`);
    if (answer.text.includes(dir) || answer.text.includes(process.cwd())) found.push('answer shows a server path');

    const sent = `${request.target}\n${safeDecode(request.target)}\n${JSON.stringify(sentHeaders)}\n${request.body ? Buffer.from(request.body).toString('utf8') : ''}`;
    for (const marker of bystanderMarkers) {
      if (answer.text.includes(marker) && !sent.includes(marker)) found.push(`answer carries the other tenant's data (\`${marker}\`)`);
    }
    return found;
  }

  function record(operation: FuzzOperation, status: number): void {
    counts.set(operation.key, (counts.get(operation.key) ?? 0) + 1);
    const statusClass = `${Math.floor(status / 100)}xx`;
    byClass[statusClass] = (byClass[statusClass] ?? 0) + 1;
  }

  /** The service's own account of a failure: its error log lines since `from`. */
  function serverErrors(from: number): string {
    return service.lines
      .slice(from)
      .filter((line) => typeof line.level === 'number' && line.level >= 50)
      .map((line) => JSON.stringify(line).slice(0, 2_000))
      .join('\n');
  }

  for (const operation of operations) {
    it(`${operation.key} answers every generated request below 500, errors in the envelope, 2xx as documented`, async () => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest(operation, hints, { bodyLimitBytes: BODY_LIMIT_BYTES }).map(describedRequest), async (request) => {
          const logFrom = service.lines.length;
          const headers = wireHeaders(request);
          const answer = await send(request, headers);
          record(operation, answer.status);
          const problems = findings(request, headers, answer);
          expect(problems, `${answer.status} ${answer.text.slice(0, 600)}\n${serverErrors(logFrom)}`).toEqual([]);
        }),
        { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
      );
    }, 300_000);
  }

  it('leaves the other tenant untouched, both audit chains valid, and reports what it sent', async () => {
    const bystanderWorkflow = (bystanderBefore.workflow as { workflowId: string }).workflowId;
    const after = await bystanderState(bystanderWorkflow, (bystanderBefore.anomaly as { id: string }).id);
    expect(after.verification).toMatchObject({ valid: true });
    expect((after.audit as unknown[]).length).toBe((bystanderBefore.audit as unknown[]).length);
    expect(after).toEqual(bystanderBefore);
    const fuzzerChain = await call<{ valid: boolean; checked: number }>(credentials.fuzzerToken, FUZZER, 'GET', '/api/v1/audit/verify');
    expect(fuzzerChain.body).toMatchObject({ valid: true });
    expect(fuzzerChain.body.checked).toBeGreaterThan(0);

    for (const operation of operations) expect(counts.get(operation.key) ?? 0, operation.key).toBeGreaterThan(0);
    const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
    const number = (n: number) => n.toLocaleString('en-US');
    console.log(
      `rest fuzz: ${number(total)} requests over ${operations.length} operations: ` +
        Object.entries(byClass)
          .filter(([statusClass, n]) => n > 0 || statusClass !== '3xx')
          .map(([statusClass, n]) => `${statusClass} ${number(n)}`)
          .join(', ') +
        (graphqlShapedErrors.count > 0 ? `; GraphQL request errors as {errors}: ${number(graphqlShapedErrors.count)}` : ''),
    );
  }, 60_000);
});

/** GraphQL over HTTP's answer to a refused request: `{errors: [{message, extensions: {code}}]}` without `data`. */
function isGraphqlRequestError(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || 'data' in body) return false;
  const errors = (body as { errors?: unknown }).errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => typeof e?.message === 'string' && typeof e?.extensions?.code === 'string')
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Counterexamples print as a short summary, not a megabyte of body bytes. */
function describedRequest(request: GeneratedRequest): GeneratedRequest {
  return Object.assign(request, {
    [fc.toStringMethod]: () => {
      const body = request.body === undefined ? 'no body' : `body ${request.body.length} bytes: ${JSON.stringify(Buffer.from(request.body.subarray(0, 300)).toString('utf8'))}`;
      return `${request.method} ${request.target.slice(0, 300)} | ${JSON.stringify({ ...request.headers, extra: request.headers.extra.map(([n, v]) => [n, v.slice(0, 80)]) })} | ${body}`;
    },
  });
}

// Header-only callers behind an authenticating gateway (TRUSTED_GATEWAY_CIDRS and
// TRUSTED_GATEWAY_SECRET) against the built service process, over real sockets from two loopback
// addresses: 127.0.0.1 is the gateway, 127.0.0.2 anyone else on the network.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

const GATEWAY_SECRET = 'secret-of-the-gateway-0123456789';
const SOURCE = 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('trusted gateway mode (the service process)', () => {
  let service: ServiceProcess;
  let port: number;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-gateway-'));
    env = {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomUUID()}`,
      HOST: '0.0.0.0',
      PORT: '0',
      TRUSTED_GATEWAY_CIDRS: '127.0.0.1/32',
      TRUSTED_GATEWAY_SECRET: GATEWAY_SECRET,
    };
    service = runService([], env);
    port = (await service.waitForLog('api listening')).port as number;
  });

  afterAll(async () => {
    if (service?.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A request from `from` (a loopback address) with exactly these headers. */
  function call(method: string, path: string, headers: Record<string, string>, body?: unknown, from = '127.0.0.1'): Promise<Answer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          localAddress: from,
          headers: { ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  const gatewayHeaders = (tenant: string, role: string, secret: string | null = GATEWAY_SECRET) => ({
    'x-tenant-id': tenant,
    'x-user-role': role,
    ...(secret === null ? {} : { 'x-gateway-secret': secret }),
  });
  const evaluateSource = (headers: Record<string, string>, from?: string) =>
    call('POST', '/api/v1/policies/evaluate-source', headers, { source: SOURCE, functionName: 'f', context: { x: 21 }, locale: 'en-US' }, from);

  async function adminToken(tenant: string): Promise<string> {
    const out: string[] = [];
    expect(await runTokenCli(['--tenant', tenant, '--role', 'ADMIN'], { env, out: (line) => out.push(line), err: () => {} })).toBe(0);
    return out[0]!;
  }

  it('says at start-up that it trusts the gateway', async () => {
    while (!service.stderr.some((line) => line.includes(' started, role '))) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.stderr.join('\n')).toContain('header-only requests from the trusted gateway at 127.0.0.1/32 with its secret');
  });

  it('takes the interface\'s header-only evaluate-source request from the gateway, audited as gateway:<role>', async () => {
    const answer = await evaluateSource(gatewayHeaders('acme', 'MEMBER'));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ result: 42, error: null });
    const token = await adminToken('acme');
    const records = await call('GET', '/api/v1/audit/type/SOURCE_EVALUATED', { authorization: `Bearer ${token}`, 'x-tenant-id': 'acme' });
    expect(records.status).toBe(200);
    expect((records.body as unknown as Array<{ actorId: string }>).map((record) => record.actorId)).toEqual(['gateway:MEMBER']);
  });

  it('deploys, evaluates by name and answers GraphQL queries for the gateway, each tenant apart', async () => {
    const deployed = await call('POST', '/api/v1/policies', gatewayHeaders('globex', 'ADMIN'), { source: 'Module globex.price.\n\nRule price given amount as Int, produce Int:\n  Return amount times 3.\n', locale: 'en-US' });
    expect(deployed.status).toBe(201);
    const evaluated = await call('POST', '/api/v1/policies/evaluate', gatewayHeaders('globex', 'MEMBER'), { policyModule: 'globex.price', policyFunction: 'price', context: { amount: 5 } });
    expect(evaluated).toMatchObject({ status: 200, body: { result: 15, version: 1 } });
    // The bystander tenant does not see it.
    const bystander = await call('POST', '/api/v1/policies/evaluate', gatewayHeaders('acme', 'MEMBER'), { policyModule: 'globex.price', policyFunction: 'price', context: { amount: 5 } });
    expect(bystander.status).toBe(404);
    const graphql = await call('POST', '/graphql', gatewayHeaders('globex', 'VIEWER'), { query: '{ getPolicy(id: "globex.price.price@1") { id version } }' });
    expect(graphql.status).toBe(200);
    expect(graphql.body).toEqual({ data: { getPolicy: { id: 'globex.price.price@1', version: 1 } } });
    const elsewhere = await call('POST', '/graphql', gatewayHeaders('acme', 'VIEWER'), { query: '{ getPolicy(id: "globex.price.price@1") { id } }' });
    expect(elsewhere.body).toEqual({ data: { getPolicy: null } });
  });

  it('records a GraphQL decision asked through the gateway as the gateway\'s', async () => {
    const decided = await call('POST', '/graphql', gatewayHeaders('initech', 'MEMBER'), {
      query: 'query($a: LoanApplication!, $p: LoanApplicant!) { evaluateLoanEligibility(application: $a, applicant: $p) { eligible } }',
      variables: {
        a: { requestedAmount: 20000, termMonths: 36, purpose: 'CAR' },
        p: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
      },
    });
    expect(decided).toMatchObject({ status: 200, body: { data: { evaluateLoanEligibility: { eligible: true } } } });
    const records = await call('GET', '/api/v1/audit/type/POLICY_EVALUATED', { authorization: `Bearer ${await adminToken('initech')}`, 'x-tenant-id': 'initech' });
    expect((records.body as unknown as Array<{ actorId: string }>).map((record) => record.actorId)).toEqual(['gateway:MEMBER']);
  });

  it('still holds the role: VIEWER may not evaluate, an unknown role is refused', async () => {
    const viewer = await evaluateSource(gatewayHeaders('acme', 'VIEWER'));
    expect(viewer).toMatchObject({ status: 403, body: { code: 'ERR_AUTH_ROLE_INSUFFICIENT' } });
    const unknown = await evaluateSource(gatewayHeaders('acme', 'ROOT'));
    expect(unknown).toMatchObject({ status: 403, body: { code: 'ERR_AUTH_ROLE_INSUFFICIENT' } });
  });

  it.each([
    ['without the gateway secret', gatewayHeaders('acme', 'OWNER', null), '127.0.0.1'],
    ['with a wrong gateway secret', gatewayHeaders('acme', 'OWNER', `${GATEWAY_SECRET}x`), '127.0.0.1'],
    ['from a peer outside the networks, even with the secret', gatewayHeaders('acme', 'OWNER'), '127.0.0.2'],
    ['from outside, claiming the gateway in X-Forwarded-For', { ...gatewayHeaders('acme', 'OWNER'), 'x-forwarded-for': '127.0.0.1' }, '127.0.0.2'],
  ])('refuses a header-only request %s as unsigned, as without the mode', async (_label, headers, from) => {
    const answer = await evaluateSource(headers, from);
    expect(answer).toMatchObject({ status: 403, body: { code: 'ERR_AUTH_SIGNATURE_MISSING' } });
  });

  it('does not stand in for a token on the routes that take only tokens', async () => {
    const answer = await call('GET', '/api/v1/audit', gatewayHeaders('acme', 'OWNER'));
    expect(answer).toMatchObject({ status: 401, body: { code: 'ERR_AUTH_TOKEN_MISSING' } });
  });

  it('checks a credential the request does carry instead of trusting the gateway', async () => {
    const answer = await evaluateSource({ ...gatewayHeaders('acme', 'MEMBER'), authorization: 'Bearer not.a.token' });
    expect(answer).toMatchObject({ status: 401, body: { code: 'ERR_AUTH_TOKEN_INVALID' } });
  });
});

// The OpenAPI document against the service: every route the router has is documented (and nothing
// else), every documented operation answers at the served address with a documented status, and
// real answers fit the documented schemas.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import {
  answerSchemas,
  API_OPERATIONS,
  buildOpenApiDocument,
  createAnomalyRoutes,
  createApp,
  createEvaluationRoutes,
  createPolicyRoutes,
  createWorkflowRoutes,
} from '../../src/api/index.js';
import { createGraphqlRoute } from '../../src/graphql/index.js';
import { createLogger } from '../../src/logging/index.js';
import { createServiceMetrics } from '../../src/metrics/index.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

/** The routes of an app with every route module of the service (registration only: nothing is called). */
function registeredRoutes(): string[] {
  const unused = {} as never;
  const app = createApp({
    logger: createLogger({ level: 'silent' }),
    store: { idempotency: unused } as never,
    redis: unused,
    tokenVerifier: unused,
    auditVerifier: unused,
    rateLimiter: unused,
    bodyLimitBytes: 1024,
    metrics: createServiceMetrics(),
    routes: [
      createAnomalyRoutes({ triage: unused, settings: unused }),
      createWorkflowRoutes({ service: unused, tenants: unused, nonceGuard: unused }),
      createEvaluationRoutes({ service: unused, tenants: unused, nonceGuard: unused, maxBatchItems: 10 }),
      createPolicyRoutes({ catalog: unused, service: unused, tenants: unused, nonceGuard: unused }),
      createGraphqlRoute({ tenants: unused, nonceGuard: unused, policies: unused, decide: unused }),
    ],
  });
  const dispatch = app.middleware.find((middleware) => 'router' in middleware) as unknown as { router: Router };
  return dispatch.router.stack.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method.toLowerCase()} ${String(layer.path).replace(/:([A-Za-z]+)/g, '{$1}')}`),
  );
}

describe('the OpenAPI document', () => {
  it('documents exactly the routes the router has', () => {
    // The pages (the API reference and the console) are not API operations.
    const registered = registeredRoutes().filter((route) => !route.startsWith('get /docs') && !route.startsWith('get /console')).sort();
    const documented = API_OPERATIONS.map((op) => `${op.method} ${op.path}`).sort();
    expect(documented).toEqual(registered);
  });

  it('is OpenAPI 3.1 with, for every operation, its success, its errors in the envelope, and its authentication', () => {
    const document = buildOpenApiDocument() as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; security: unknown[] }>> };
    expect(document.openapi).toBe('3.1.0');
    for (const op of API_OPERATIONS) {
      const documented = document.paths[op.path]![op.method]!;
      expect(Object.keys(documented.responses), `${op.method} ${op.path}`).toContain(String(op.success.status));
      expect(documented.responses['500']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
      if (op.auth !== 'none') {
        expect(documented.security.length, `${op.method} ${op.path}`).toBeGreaterThan(0);
        expect(Object.keys(documented.responses)).toEqual(expect.arrayContaining(['400', '403', '429']));
      }
      if (op.body !== undefined) expect(Object.keys(documented.responses)).toContain('400');
    }
  });
});

describe('the OpenAPI document against the running service', () => {
  let dataDir: string;
  let service: ServiceProcess;
  let base: string;
  let token: string;

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-openapi-'));
    const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0' };
    service = runService([], env);
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    const lines: string[] = [];
    await runTokenCli(['--tenant', 'acme', '--role', 'OWNER'], { env, out: (l) => lines.push(l), err: () => {} });
    token = lines[0]!;
  }, 60_000);
  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the document and a reference page that loads only from this service', async () => {
    const served = await (await fetch(`${base}/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const page = await (await fetch(`${base}/docs`)).text();
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/'), asset).toBe(true);
      expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${base}/docs/..%2Fpackage.json`)).status).toBe(404);
  });

  it('answers every documented operation, without credentials, with one of its documented statuses', async () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const op of API_OPERATIONS) {
      const path = op.path.replace(/\{[A-Za-z]+\}/g, 'x1');
      const response = await fetch(`${base}${path}`, {
        method: op.method.toUpperCase(),
        ...(op.method === 'get' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      await response.arrayBuffer();
      expect(Object.keys(document.paths[op.path]![op.method]!.responses), `${op.method} ${op.path} answered ${response.status}`).toContain(String(response.status));
    }
  });

  it('answers in the documented shapes', async () => {
    const headers = { authorization: `Bearer ${token}`, 'x-tenant-id': 'acme', 'content-type': 'application/json' };
    answerSchemas.health.parse(await (await fetch(`${base}/healthz`)).json());
    answerSchemas.readiness.parse(await (await fetch(`${base}/readyz`)).json());
    answerSchemas.version.parse(await (await fetch(`${base}/version`)).json());
    const evaluated = await fetch(`${base}/api/v1/policies/evaluate-source`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ source: 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n', functionName: 'f', context: { x: 2 } }),
    });
    answerSchemas.evaluationAnswer.parse(await evaluated.json());
    const deployed = await fetch(`${base}/api/v1/policies`, { method: 'POST', headers, body: JSON.stringify({ source: 'Module acme.p.\nRule f given x as Int, produce Int:\n  Return x.\n' }) });
    expect(deployed.status).toBe(201);
    answerSchemas.deployed.parse(await deployed.json());
    answerSchemas.storedEvaluationAnswer.parse(await (await fetch(`${base}/api/v1/policies/evaluate`, { method: 'POST', headers, body: JSON.stringify({ policyModule: 'acme.p', policyFunction: 'f', context: { x: 1 } }) })).json());
    const listed = await (await fetch(`${base}/api/v1/policies?policyModule=acme.p`, { headers })).json();
    expect(answerSchemas.policyPage.parse(listed)).toMatchObject({ content: [{ id: 'acme.p.f@1' }], totalElements: 1, totalPages: 1, page: 0, size: 20 });
    // Exactly the documented fields: a listed policy carries no source.
    answerSchemas.policy.strict().parse((listed as { content: unknown[] }).content[0]);
    answerSchemas.policyDetail.strict().parse(await (await fetch(`${base}/api/v1/policies/acme.p.f@1`, { headers })).json());
    expect(answerSchemas.moduleVersionPage.parse(await (await fetch(`${base}/api/v1/policies/acme.p/versions`, { headers })).json())).toMatchObject({ totalElements: 1 });
    answerSchemas.moduleVersion.strict().parse(await (await fetch(`${base}/api/v1/policies/acme.p/versions/1`, { headers })).json());
    answerSchemas.auditRecord.array().parse(await (await fetch(`${base}/api/v1/audit`, { headers })).json());
    answerSchemas.chainVerification.parse(await (await fetch(`${base}/api/v1/audit/verify`, { headers })).json());
    answerSchemas.anomalyPage.parse(await (await fetch(`${base}/api/v1/audit/anomalies`, { headers })).json());
    answerSchemas.anomalySettings.parse(await (await fetch(`${base}/api/v1/audit/anomaly-settings`, { headers })).json());
    const window = `startTime=${new Date(Date.now() - 3_600_000).toISOString()}&endTime=${new Date().toISOString()}&step=hour`;
    const rollups = answerSchemas.rollupSeries.parse(await (await fetch(`${base}/api/v1/audit/rollups?policyModule=acme.p&policyFunction=f&${window}`, { headers })).json());
    expect(rollups.series.map((series) => series.total.count)).toEqual([1]);
    answerSchemas.errorEnvelope.parse(await (await fetch(`${base}/api/v1/policies/acme.p.nothing`, { headers })).json());
  });
});

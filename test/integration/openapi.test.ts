// The OpenAPI document against the service: it is served as pinned, every documented operation
// answers at the served address with a documented status, and real answers fit the documented schemas.
import { graphqlRefusal } from '../../src/graphql/graphql-http-schemas.js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { answerSchemas, buildOpenApiDocument } from '../../src/api/index.js';
import { API_OPERATIONS, assertServiceBuilt, REDIS_URL, runService, SERVICE_ROUTES, type ServiceProcess } from '../support/index.js';

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with, for every operation, its success, its errors in the envelope, and its authentication', () => {
    const document = buildOpenApiDocument(SERVICE_ROUTES) as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; security: unknown[] }>> };
    expect(document.openapi).toBe('3.1.0');
    for (const op of API_OPERATIONS) {
      const documented = document.paths[op.path]![op.method]!;
      expect(Object.keys(documented.responses), `${op.method} ${op.path}`).toContain(String(op.doc.success.status));
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
    // Byte for byte the pinned document (test/golden/openapi.json), as the service builds it from its routes.
    const served = await (await fetch(`${base}/openapi.json`)).text();
    expect(served).toBe(JSON.stringify(JSON.parse(readFileSync(new URL('../golden/openapi.json', import.meta.url), 'utf8'))));
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
    const document = buildOpenApiDocument(SERVICE_ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
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
    // GraphQL refuses in its own form (here a bearer token, which it does not take), the envelope's fields beside.
    const refused = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(refused.status).toBe(403);
    expect(graphqlRefusal.parse(await refused.json())).toMatchObject({ errors: [{ extensions: { code: 'ERR_AUTH_SIGNATURE_MISSING' } }], code: 'ERR_AUTH_SIGNATURE_MISSING' });
  });
});

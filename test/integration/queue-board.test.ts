// The operators' queue dashboard (Bull Board) on the built service: who may see it, who may act,
// and signing in from a browser with a cookie.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { QUEUE_NAMES, queuePrefix } from '../../src/jobs/queue-names.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

describe('queue dashboard', () => {
  let dataDir: string;
  let service: ServiceProcess;
  let base: string;
  let keyPrefix: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-board-'));
    keyPrefix = `test-${randomUUID()}`;
    const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: keyPrefix, HOST: '127.0.0.1', PORT: '0' };
    service = runService([], env);
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    for (const [name, tenant, role] of [['viewer', 'operators', 'VIEWER'], ['admin', 'operators', 'ADMIN'], ['tenantOwner', 'acme', 'OWNER']] as const) {
      const lines: string[] = [];
      await runTokenCli(['--tenant', tenant, '--role', role], { env, out: (l) => lines.push(l), err: () => {} });
      tokens[name] = lines[0]!;
    }
  }, 60_000);
  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  const as = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });
  const code = async (response: Response) => ((await response.json()) as { code: string }).code;

  it('sends a browser without a token to sign in, and answers 401 in the envelope to anything else', async () => {
    const browser = await fetch(`${base}/admin/queues/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/admin/login');
    const client = await fetch(`${base}/admin/queues/api/queues`);
    expect(client.status).toBe(401);
    expect(await code(client)).toBe('ERR_AUTH_TOKEN_MISSING');
  });

  it('refuses every tenant\'s own token: the board shows all tenants\' jobs', async () => {
    const response = await fetch(`${base}/admin/queues/api/queues`, { headers: as('tenantOwner') });
    expect(response.status).toBe(403);
    expect(await code(response)).toBe('ERR_AUTH_TENANT_MISMATCH');
  });

  it('shows every queue read-only to an operator VIEWER, and refuses actions', async () => {
    const page = await fetch(`${base}/admin/queues/`, { headers: as('viewer') });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const listed = (await (await fetch(`${base}/admin/queues/api/queues`, { headers: as('viewer') })).json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(listed.queues.map((q) => q.name).sort()).toEqual(['anomaly-detect', 'anomaly-verify', 'policy-evaluate', 'webhook-deliver', 'workflow-run']);
    expect(listed.queues.every((q) => q.readOnlyMode)).toBe(true);
    const pause = await fetch(`${base}/admin/queues/api/queues/workflow-run/pause`, { method: 'PUT', headers: as('viewer') });
    expect(pause.status).toBe(403);
    const actions = await fetch(`${base}/admin/queues-admin/api/queues`, { headers: as('viewer') });
    expect(actions.status).toBe(403);
    expect(await code(actions)).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
  });

  it('lets an operator ADMIN act on queues', async () => {
    const listed = (await (await fetch(`${base}/admin/queues-admin/api/queues`, { headers: as('admin') })).json()) as { queues: Array<{ name: string; readOnlyMode: boolean; isPaused: boolean }> };
    expect(listed.queues.every((q) => !q.readOnlyMode)).toBe(true);
    expect((await fetch(`${base}/admin/queues-admin/api/queues/anomaly-verify/pause`, { method: 'PUT', headers: as('admin') })).status).toBe(200);
    const paused = (await (await fetch(`${base}/admin/queues-admin/api/queues`, { headers: as('admin') })).json()) as typeof listed;
    expect(paused.queues.find((q) => q.name === 'anomaly-verify')?.isPaused).toBe(true);
    expect((await fetch(`${base}/admin/queues-admin/api/queues/anomaly-verify/resume`, { method: 'PUT', headers: as('admin') })).status).toBe(200);
    // Jobs carry a tenant's id: an operator may not make one up, nor empty or delete a queue.
    for (const [method, path] of [
      ['POST', '/api/queues/workflow-run/add'],
      ['PUT', '/api/queues/anomaly-detect/empty'],
      ['PUT', '/api/queues/anomaly-detect/obliterate'],
    ] as const) {
      const refused = await fetch(`${base}/admin/queues-admin${path}`, { method, headers: { ...as('admin'), 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status, path).toBe(403);
    }
    const still = (await (await fetch(`${base}/admin/queues-admin/api/queues`, { headers: as('admin') })).json()) as typeof listed;
    expect(still.queues.map((q) => q.name)).toContain('anomaly-detect');
  });

  it('refuses paging of the queue list it cannot serve with 400 in the envelope, before Bull Board or Redis sees it', async () => {
    const queries = [
      // Past 2^62: Bull Board handed it to a Redis script, which answered a 500 naming the script.
      'page=4611686018427387904&jobsPerPage=10',
      'page=1&jobsPerPage=99999999999999999999',
      'page=1000001',
      'jobsPerPage=101',
      'page=0',
      'page=-1',
      'page=1.5',
      'jobsPerPage=1e2',
      'page=',
      'page=1&page=2',
    ];
    const logged = service.lines.length;
    for (const board of ['queues', 'queues-admin']) {
      for (const query of queries) {
        const response = await fetch(`${base}/admin/${board}/api/queues?activeQueue=policy-evaluate&status=completed&${query}`, { headers: as('admin') });
        const body = (await response.json()) as Record<string, unknown>;
        expect([response.status, body.code], `${board} ${query}`).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
        expect(body, `${board} ${query}`).toMatchObject({ result: null, executionTimeMs: 0 });
        expect(String(body.error), `${board} ${query}`).toMatch(/^`(page|jobsPerPage)` must be one whole number from 1 to (1,000,000|100)$/);
      }
    }
    // The bounds themselves are served.
    const widest = await fetch(`${base}/admin/queues/api/queues?activeQueue=policy-evaluate&status=completed&page=1000000&jobsPerPage=100`, { headers: as('viewer') });
    expect(widest.status).toBe(200);
    expect(((await widest.json()) as { queues: unknown[] }).queues).toHaveLength(5);
    // Nothing the client sent is logged as the service's failure.
    expect(service.lines.slice(logged).filter((line) => (line.level as number) >= 40)).toEqual([]);
  });

  it('answers a failure inside Bull Board with a 500 in the envelope that names no internals, logged with a reference', async () => {
    // A queue's meta hash replaced by a string: Redis refuses Bull Board's reads of it (WRONGTYPE).
    const redis = new Redis(REDIS_URL);
    try {
      const meta = `${queuePrefix(QUEUE_NAMES.anomalyVerify, keyPrefix)}:${QUEUE_NAMES.anomalyVerify}:meta`;
      const saved = await redis.dumpBuffer(meta);
      await redis.set(meta, 'not a hash');
      try {
        const response = await fetch(`${base}/admin/queues/api/queues`, { headers: as('viewer') });
        const body = (await response.json()) as Record<string, unknown>;
        expect([response.status, body.code]).toEqual([500, 'ERR_INTERNAL_UNEXPECTED']);
        expect(body).toMatchObject({ result: null, executionTimeMs: 0 });
        const reference = /^internal error; reference ([0-9a-f-]{36})$/.exec(String(body.error))?.[1];
        expect(reference).toBeDefined();
        const logged = await service.waitForLog((line) => line.ref === reference);
        expect([logged.msg, String((logged.err as { message: string }).message)]).toEqual(['unexpected error', expect.stringContaining('WRONGTYPE')]);
        // Logged once, by the service's error handler: not also as a response that failed.
        expect(service.lines.filter((line) => line.msg === 'response failed')).toEqual([]);
      } finally {
        await redis.del(meta);
        if (saved !== null) await redis.restore(meta, 0, saved);
      }
      expect((await fetch(`${base}/admin/queues/api/queues`, { headers: as('viewer') })).status).toBe(200);
    } finally {
      redis.disconnect();
    }
  });

  it('signs a browser in with a pasted token kept in an HttpOnly, SameSite=Strict cookie, and out again', async () => {
    const form = await fetch(`${base}/admin/login`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('<label for="token">');
    const refused = await fetch(`${base}/admin/login`, { method: 'POST', body: new URLSearchParams({ token: 'not-a-token' }), redirect: 'manual' });
    expect(refused.status).toBe(401);
    const signedIn = await fetch(`${base}/admin/login`, { method: 'POST', body: new URLSearchParams({ token: tokens.viewer! }), redirect: 'manual' });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).toBe('/admin/queues/');
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^pe_operator=[^;]+; path=\/admin; expires=[^;]+; samesite=strict; httponly$/);
    const pair = cookie.split(';')[0]!;
    expect((await fetch(`${base}/admin/queues/api/queues`, { headers: { cookie: pair } })).status).toBe(200);
    const out = await fetch(`${base}/admin/logout`, { headers: { cookie: pair }, redirect: 'manual' });
    expect(out.headers.get('set-cookie')).toMatch(/^pe_operator=; path=\/admin; expires=Thu, 01 Jan 1970/);
  });

  it('takes a sign-in posted from this site only: one from another site sets no cookie', async () => {
    const post = (site: string) =>
      fetch(`${base}/admin/login`, { method: 'POST', body: new URLSearchParams({ token: tokens.admin! }), headers: { 'sec-fetch-site': site }, redirect: 'manual' });
    for (const site of ['cross-site', 'same-site']) {
      const refused = await post(site);
      expect(refused.status, site).toBe(403);
      expect(refused.headers.get('set-cookie'), site).toBeNull();
      expect(await refused.text()).toContain('A sign-in is taken from this site’s own pages only.');
    }
    const taken = await post('same-origin');
    expect(taken.status).toBe(302);
    expect(taken.headers.get('location')).toBe('/admin/queues-admin/');
  });

  it('links the board back to the console and to signing out', async () => {
    const page = await fetch(`${base}/admin/queues/`, { headers: as('viewer') });
    const html = await page.text();
    expect(html).toContain('"miscLinks":[{"text":"Console","url":"/console"},{"text":"Sign out","url":"/admin/logout"}]');
  });
});

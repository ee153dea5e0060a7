// Fault: Redis goes away under load and comes back. The built service (role `all`, SQLite) runs on
// a redis-server of this test's own, which the test stops and starts again. While Redis is down
// every request gets an answer at once — 503 with Retry-After, never a 500 and never a hang — and
// once it is back the service answers 200 again without a restart.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { assertServiceBuilt, runService, type ServiceProcess } from '../support/index.js';
import { startOwnRedis, type OwnRedis } from './support/own-redis.js';

const SOURCE = 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n';
/** No answer within this is a hang. */
const ANSWER_TIMEOUT_MS = 8000;

describe('Redis outage', () => {
  let dir: string;
  let redis: OwnRedis;
  let service: ServiceProcess;
  let base: string;
  let token: string;
  let secret: string;

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-fault-redis-'));
    redis = await startOwnRedis(dir);
    const env = { DATA_DIR: dir, REDIS_URL: redis.url, REDIS_KEY_PREFIX: `fault-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0', NO_WORKER_TIMEOUT_MS: '3000' };
    service = runService([], env);
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    const lines: string[] = [];
    await runTokenCli(['--tenant', 'acme', '--role', 'MEMBER'], { env, out: (l) => lines.push(l), err: () => {} });
    token = lines[0]!;
    const created: string[] = [];
    await runTenantCli(['create', 'acme'], { env, out: (l) => created.push(l), err: () => {} });
    secret = created.at(-1)!;
  }, 60_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    if (redis) await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  let sent = 0;
  /** Bearer and signed requests in turn: the rate limit and the nonce claim both need Redis. */
  const evaluate = async (): Promise<{ status: number; retryAfter: string | null; code?: string; ms: number }> => {
    const started = Date.now();
    const path = '/api/v1/policies/evaluate-source';
    const body = JSON.stringify({ source: SOURCE, functionName: 'f', context: { x: 21 } });
    const credentials =
      sent++ % 2 === 0
        ? { authorization: `Bearer ${token}`, 'x-tenant-id': 'acme' }
        : signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: 'acme', role: 'MEMBER', secret });
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...credentials, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    const answer = (await response.json()) as { code?: string };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started, ...(answer.code ? { code: answer.code } : {}) };
  };

  it('answers 503 with Retry-After while Redis is down, and 200 again once it is back', async () => {
    expect((await evaluate()).status).toBe(200);
    expect((await evaluate()).status).toBe(200);

    await redis.stop();
    const during: Array<Awaited<ReturnType<typeof evaluate>>> = [];
    const until = Date.now() + 3000;
    while (Date.now() < until) during.push(await evaluate());
    expect(during.length).toBeGreaterThan(3);
    for (const answer of during) {
      expect(answer.status, JSON.stringify(answer)).toBe(503);
      expect(Number(answer.retryAfter), JSON.stringify(answer)).toBeGreaterThan(0);
      expect(['ERR_SERVICE_UNAVAILABLE', 'ERR_EVALUATION_UNAVAILABLE']).toContain(answer.code);
    }
    // The readiness check says why.
    expect((await fetch(`${base}/readyz`)).status).toBe(503);

    await redis.start({ keepData: true });
    let last: Awaited<ReturnType<typeof evaluate>> | undefined;
    for (let attempt = 0; attempt < 60; attempt += 1) {
      last = await evaluate();
      if (last.status === 200) break;
      expect(last.status, JSON.stringify(last)).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(last?.status, JSON.stringify(last)).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 90_000);
});

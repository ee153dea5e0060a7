// The evaluation path as `npm start` wires it (dist/src/main.js): role `all` through the
// `policy-evaluate` queue, role `api` alone answering 503, and `api` + `worker` as two processes.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PolicyHttpError, createPolicyClient } from '../../clients/typescript/src/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { SOURCE_EVALUATED } from '../../src/evaluation/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { createTenantService } from '../../src/tenants/index.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';
import { PRICING_SOURCE, priceContext } from './evaluation-support/policies.js';

const evaluation = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 800, 21), locale: 'en-US' };

describe('evaluation in the service process', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let secret: string;
  const tenantId = `acme-${randomBytes(3).toString('hex')}`;
  const processes: ServiceProcess[] = [];

  const start = async (args: string[], extra: Record<string, string> = {}) => {
    const running = runService(args, { ...env, ...extra });
    processes.push(running);
    await running.waitForLog('service started');
    return running;
  };
  const baseUrlOf = async (running: ServiceProcess) => `http://127.0.0.1:${(await running.waitForLog('api listening')).port as number}`;
  const stop = async (running: ServiceProcess) => {
    running.child.kill('SIGTERM');
    return running.exited;
  };

  beforeAll(assertServiceBuilt);

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pe-eval-main-'));
    const prefix = `test-${randomUUID()}`;
    env = {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      HOST: '127.0.0.1',
      PORT: '0',
      ENGINE_THREADS: '1',
      EVALUATION_TIMEOUT_MS: '200',
      NO_WORKER_TIMEOUT_MS: '1500',
    };
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    secret = (await createTenantService(store.tenants).register(tenantId)).secret.secret;
    await store.close();
  });

  afterEach(async () => {
    for (const running of processes.splice(0)) {
      if (running.child.exitCode === null) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
    }
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`*${env.REDIS_KEY_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('role all evaluates through the queue, audits, and stops cleanly', async () => {
    const all = await start([]);
    expect(all.lines.some((l) => l.msg === 'evaluation engine started' && l.threads === 1)).toBe(true);
    const client = createPolicyClient({ baseUrl: await baseUrlOf(all), tenantId, role: 'MEMBER', secret, retries: 0 });
    const outcomes = await Promise.all([1, 2, 3].map((n) => client.evaluateSource({ ...evaluation, context: priceContext(30, 800, n) })));
    expect(outcomes.map((o) => (o.ok ? o.result : o.error))).toEqual([2, 4, 6]);
    const batch = await client.evaluateBatch([evaluation, { ...evaluation, functionName: 'nope' }]);
    expect(batch.results.map((r) => (r.ok ? r.result : r.code))).toEqual([42, 'PL6002']);
    expect(await stop(all)).toBe(0);

    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    try {
      const records = await store.audit.list(tenantId, { eventType: SOURCE_EVALUATED, limit: 100 });
      expect(records).toHaveLength(5);
      expect(records.every((r) => r.actorId === `signed:${tenantId}`)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('role api without a worker answers 503, and a worker process started later serves it', async () => {
    const api = await start(['--role', 'api']);
    const client = createPolicyClient({ baseUrl: await baseUrlOf(api), tenantId, role: 'MEMBER', secret, retries: 0 });
    const refused = await client.evaluateSource(evaluation).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PolicyHttpError);
    expect(refused).toMatchObject({ status: 503, code: 'ERR_EVALUATION_UNAVAILABLE' });

    const worker = await start(['--role', 'worker']);
    expect(worker.lines.some((l) => l.msg === 'evaluation engine started')).toBe(true);
    expect(await client.evaluateSource(evaluation)).toMatchObject({ ok: true, result: 42 });
    expect(await stop(api)).toBe(0);
    expect(await stop(worker)).toBe(0);
  });
});

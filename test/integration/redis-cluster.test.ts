// The service on a Redis Cluster of the suite's own (three masters, three replicas): the Redis users
// whose scripts and pipelines touch several keys, in process, and the built service (role `all`,
// SQLite) with REDIS_CLUSTER_NODES answering evaluations, running a workflow to its end, running a
// detection round through the `anomaly-detect` queue and keeping every answer in its audit chain.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAnomaliesCli } from '../../scripts/anomalies.js';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { AUDIT_RECORD_ID_HEADER } from '../../src/api/index.js';
import { createNonceGuard } from '../../src/auth/index.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { POLICY_EVALUATED, SOURCE_EVALUATED } from '../../src/evaluation/index.js';
import { createRedisClient, parseClusterNodes, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { createRedisRolloutTally } from '../../src/policies/index.js';
import { assertServiceBuilt, REDIS_URL, runService, startRedisCluster, unusedPort, untilLinked, type OwnRedisCluster, type ServiceProcess } from '../support/index.js';

const MODULE = 'cluster.pricing';
const SOURCE =
  `Module ${MODULE}.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n\n` +
  'Rule adult given age as Int, produce Bool:\n  Return age is at least 18.\n\n' +
  'Workflow onboard given age as Int:\n  Step check: adult(age).\n  Step review: Await "approval" within 2 hours.\n  Step confirm: adult(age).\n';

let cluster: OwnRedisCluster;

beforeAll(async () => {
  assertServiceBuilt();
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function openClient(name: string): Promise<Cluster> {
  const redis = createRedisClient({ clusterNodes: parseClusterNodes(cluster.nodes), url: 'redis://127.0.0.1' }, name) as Cluster;
  await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

/** Keys under `prefix` on each master, by master. */
async function keysByMaster(redis: Cluster, prefix: string): Promise<number[]> {
  return Promise.all(redis.nodes('master').map(async (node) => (await node.keys(`${prefix}*`)).length));
}

describe('Redis users on a cluster', () => {
  let redis: Cluster;
  const prefix = `cluster-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    redis = await openClient('test-cluster');
  });

  afterAll(async () => {
    await redis?.quit();
  });

  it('claims the nonces of many tenants sent in one turn, each once, the tenants spread over the masters', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: `${prefix}:nonce:` });
    const tenants = Array.from({ length: 24 }, (_, index) => `tenant-${index}`);
    const nonce = randomBytes(16).toString('hex');
    expect(await Promise.all(tenants.map((tenant) => guard.claim(tenant, nonce)))).toEqual(tenants.map(() => true));
    expect(await Promise.all(tenants.map((tenant) => guard.claim(tenant, nonce)))).toEqual(tenants.map(() => false));
    // A tenant's nonces share its slot (`{tenant}`); different tenants land on different masters.
    expect(await redis.exists(`${prefix}:nonce:{tenant-0}:${nonce}`)).toBe(1);
    const perMaster = await keysByMaster(redis, `${prefix}:nonce:`);
    expect(perMaster.reduce((sum, n) => sum + n, 0)).toBe(tenants.length);
    expect(perMaster.filter((n) => n > 0).length).toBeGreaterThan(1);
  });

  it('writes the tallies of rollouts on different masters in one flush', async () => {
    const tally = createRedisRolloutTally({ redis, keyPrefix: `${prefix}:`, flushMs: 60_000 });
    const rollouts = Array.from({ length: 12 }, (_, index) => index + 1);
    for (const rollout of rollouts) {
      for (let i = 0; i < rollout; i += 1) tally.count({ tenantId: `tenant-${rollout}`, policyModule: 'm', rollout, outcome: 'agreed' });
    }
    await tally.close();
    for (const rollout of rollouts) {
      expect((await tally.read(`tenant-${rollout}`, 'm', rollout)).counts).toMatchObject({ agreed: rollout, compared: rollout });
    }
    expect((await keysByMaster(redis, `${prefix}:shadow:`)).filter((n) => n > 0).length).toBeGreaterThan(1);
  });
});

describe('the service on a cluster', () => {
  let dir: string;
  let service: ServiceProcess;
  let base: string;
  let env: Record<string, string>;
  let member: string;
  let admin: string;
  let secret: string;
  const tenantId = `acme-${randomBytes(3).toString('hex')}`;
  const keyPrefix = `cl-${randomUUID().slice(0, 8)}`;

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, recordId: response.headers.get(AUDIT_RECORD_ID_HEADER) };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pe-cluster-service-'));
    env = {
      DATA_DIR: dir,
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_KEY_PREFIX: keyPrefix,
      HOST: '127.0.0.1',
      PORT: '0',
      ENGINE_THREADS: '1',
      WORKFLOW_JOB_LOCK_SECONDS: '3',
    };
    const io = (lines: string[]) => ({ env, out: (line: string) => lines.push(line), err: () => {} });
    const created: string[] = [];
    await runTenantCli(['create', tenantId], io(created));
    secret = created.at(-1)!;
    const tokens: string[] = [];
    await runTokenCli(['--tenant', tenantId, '--role', 'MEMBER'], io(tokens));
    await runTokenCli(['--tenant', tenantId, '--role', 'ADMIN'], io(tokens));
    [member, admin] = tokens as [string, string];
    service = runService([], env);
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
  }, 60_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names the cluster in its start-up line', async () => {
    await service.waitForLog('service started');
    // The line for people follows the log line on stderr.
    for (let poll = 0; poll < 50 && !service.stderr.some((line) => line.includes('started, role')); poll += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(service.stderr.join('\n')).toContain(`Redis cluster ${cluster.nodes};`);
  });

  it('deploys, evaluates with bearer and signed requests, runs a workflow and a detection round, and chains every answer', async () => {
    expect((await call(admin, 'POST', '/api/v1/policies', { source: SOURCE, locale: 'en-US' })).status).toBe(201);

    const answered: string[] = [];
    for (let amount = 1; amount <= 3; amount += 1) {
      const stored = await call(member, 'POST', '/api/v1/policies/evaluate', { policyModule: MODULE, policyFunction: 'price', context: { amount } });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      expect(stored.body).toMatchObject({ result: amount * 2 });
      answered.push(stored.recordId!);

      const path = '/api/v1/policies/evaluate-source';
      const body = JSON.stringify({ source: `Module s.\nRule f given x as Int, produce Int:\n  Return x plus 1.\n`, functionName: 'f', context: { x: amount } });
      const signed = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...signRequest({ method: 'POST', pathWithQuery: path, body, tenantId, role: 'MEMBER', secret }), 'content-type': 'application/json' },
        body,
      });
      const signedBody = (await signed.json()) as Record<string, unknown>;
      expect(signed.status, JSON.stringify(signedBody)).toBe(200);
      expect(signedBody).toMatchObject({ result: amount + 1 });
      answered.push(signed.headers.get(AUDIT_RECORD_ID_HEADER)!);
    }

    const started = await call(member, 'POST', '/api/v1/workflows', { policyModule: MODULE, workflow: 'onboard', context: { age: 30 } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const workflow = `/api/v1/workflows/${started.body.workflowId as string}`;
    const untilStatus = async (wanted: string) => {
      for (let poll = 0; poll < 200; poll += 1) {
        const state = await call(member, 'GET', workflow);
        if (state.body.status === wanted) return state.body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`workflow never reached ${wanted}`);
    };
    expect(await untilStatus('WAITING')).toMatchObject({ currentStep: 'review' });
    expect((await call(member, 'POST', `${workflow}/signals`, { signal: 'approval', approved: true })).status).toBe(200);
    await untilStatus('COMPLETED');

    const detection: string[] = [];
    expect(await runAnomaliesCli(['detect', '--tenant', tenantId, '--json', '--timeout', '30'], { env, out: (line) => detection.push(line), err: () => {} })).toBe(0);
    expect((JSON.parse(detection.join('\n')) as { tenants: Array<{ tenantId: string }> }).tenants.map((report) => report.tenantId)).toEqual([tenantId]);

    expect(await untilLinked(async () => (await call(admin, 'GET', '/api/v1/audit/verify')).body.unlinked as number)).toBe(0);
    expect((await call(admin, 'GET', '/api/v1/audit/verify?full=true')).body).toMatchObject({ valid: true });
    for (const id of answered) {
      const record = await call(admin, 'GET', `/api/v1/audit/records/${id}`);
      expect(record.body, id).toMatchObject({ linked: true });
      expect([POLICY_EVALUATED, SOURCE_EVALUATED]).toContain(record.body.eventType);
    }
  }, 90_000);

  it('keeps each queue under one hashtag, on the master that owns its slot', async () => {
    const redis = await openClient('test-cluster-queues');
    try {
      for (const queue of [QUEUE_NAMES.policyEvaluate, QUEUE_NAMES.workflowRun, QUEUE_NAMES.anomalyDetect]) {
        const holders = (await keysByMaster(redis, `${queuePrefix(queue, keyPrefix)}:`)).filter((n) => n > 0);
        expect(holders, queue).toHaveLength(1);
      }
    } finally {
      await redis.quit();
    }
  });
});

describe('start-up without a cluster at REDIS_CLUSTER_NODES', () => {
  const startUp = async (nodes: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'pe-cluster-probe-'));
    try {
      const running = runService([], { DATA_DIR: dir, REDIS_CLUSTER_NODES: nodes, HOST: '127.0.0.1', PORT: '0' });
      return { code: await running.exited, stderr: running.stderr.join('\n') };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('exits 1 naming the nodes and the fix when none answers', async () => {
    const nodes = `127.0.0.1:${await unusedPort()}`;
    const { code, stderr } = await startUp(nodes);
    expect(code).toBe(1);
    expect(stderr).toContain(`redis is not reachable at cluster ${nodes} (`);
    expect(stderr).toContain('start the cluster or fix REDIS_CLUSTER_NODES');
  });

  it('exits 1 saying why when the node is a Redis without cluster support', async () => {
    const { hostname, port } = new URL(REDIS_URL);
    const { code, stderr } = await startUp(`${hostname}:${port || '6379'}`);
    expect(code).toBe(1);
    expect(stderr).toContain('cluster support disabled');
  });
});

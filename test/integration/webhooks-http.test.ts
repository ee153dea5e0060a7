// Webhooks through the built service (role `all`, on SQLite and on MongoDB/FerretDB) with a receiver on loopback: subscriptions
// over real HTTP as ADMIN, MEMBER and a bystander tenant; deliveries of events the service really
// records (a deploy, a workflow's completion, an anomaly's detection and status change), checked with
// the receiver code the README publishes; retries, a dead delivery and a redelivery. Then a service
// with the default safety settings, refusing loopback, private and metadata addresses at subscription
// and, for a name resolving to loopback, at delivery.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec, type Role } from '../../src/auth/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { openStore } from '../../src/store/index.js';
import {
  connectRedis,
  describeWithMongo,
  dropMongoDatabase,
  readmeVerifier,
  seedAnomalies,
  separateProcesses,
  startWebhookReceiver,
  uniqueDatabaseName,
  type ReceivedWebhook,
  type SeparateProcesses,
  type ServiceProcess,
  type StoreEnv,
  type VerifyPolicyWebhook,
  type WebhookReceiver,
} from '../support/index.js';

type Call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

/** JSON calls to the API with a bearer token of `tenantId` holding `role`. */
async function caller(deployment: SeparateProcesses, api: ServiceProcess, tenantId: string, role: Role): Promise<Call> {
  const port = (await api.waitForLog('api listening')).port as number;
  const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(deployment.env.JWT_KEYS!), 'JWT_KEYS'));
  const token = await signer.sign({ subject: `${role.toLowerCase()}-of-${tenantId}`, tenantId, roles: [role], ttlSeconds: 3600 });
  return async (method, path, body) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as never };
  };
}

const MODULE = (rate: number) => `Module acme.hooks.

Rule price given amount as Int, produce Int:
  Return amount times ${rate}.

Rule positive given amount as Int, produce Bool:
  Return amount is greater than 0.

Workflow approve given amount as Int:
  Step check: positive(amount).
`;

interface Subscription {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  secret?: string;
}

interface Delivery {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  page: number;
  size: number;
}

/** Polls until `check` answers something, up to 30 s. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let round = 0; round < 300; round += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function webhooksThroughTheService(name: string, storeEnv: () => StoreEnv): void {
  describe(name, () => {
    const deployment = separateProcesses('webhooks', storeEnv, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_MAX_PER_TENANT: '3',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_BACKOFF_BASE_MS: '200',
      WEBHOOK_FOLLOW_INTERVAL_MS: '200',
      WORKFLOW_RESUME_INTERVAL_SECONDS: '1',
    });
    let receiver: WebhookReceiver;
    let verify: VerifyPolicyWebhook;
    let admin: Call;
    let member: Call;
    let bystander: Call;
    let crud: Call;

    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      verify = await readmeVerifier();
      const api = await deployment.start('all');
      admin = await caller(deployment, api, 'acme', 'ADMIN');
      member = await caller(deployment, api, 'acme', 'MEMBER');
      bystander = await caller(deployment, api, 'bystander', 'ADMIN');
      crud = await caller(deployment, api, 'crud', 'ADMIN');
    }, 60_000);
    afterAll(async () => {
      await receiver?.close();
    });

    const subscribe = async (call: Call, path: string, events: string[]) => {
      const created = await call<Subscription>('POST', '/api/v1/webhooks', { url: `${receiver.baseUrl}${path}`, events });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body;
    };
    const deliveries = async (call: Call, id: string) => (await call<Page<Delivery>>('GET', `/api/v1/webhooks/${id}/deliveries?size=100`)).body.content;
    /** The ids of the `webhook-deliver` jobs made for redeliveries of a delivery, in whatever state (every job keeps its own key). */
    const redeliveryJobsOf = async (deliveryId: string) => {
      const redis = await connectRedis();
      try {
        const keys = await redis.keys(`${queuePrefix(QUEUE_NAMES.webhookDeliver, deployment.env.REDIS_KEY_PREFIX)}:${QUEUE_NAMES.webhookDeliver}:${deliveryId}.*`);
        return keys.filter((key) => /\.[^:.]+$/.test(key));
      } finally {
        await redis.quit();
      }
    };
    const deploy = async (rate: number) => {
      const deployed = await admin<{ version: number }>('POST', '/api/v1/policies', { source: MODULE(rate) });
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      return deployed.body.version;
    };
    /** The request's body, once its signature checks out with the subscription's secret. */
    const verified = (request: ReceivedWebhook, secret: string) => {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-policy-webhook-id']).toMatch(/^dlv_[0-9a-f]{32}$/);
      expect(verify(secret, request.headers['x-policy-webhook-signature'] as string, request.body)).toBe(true);
      expect(verify(`${secret}x`, request.headers['x-policy-webhook-signature'] as string, request.body)).toBe(false);
      return JSON.parse(request.body) as { id: string; type: string; occurredAt: string; data: Record<string, unknown> };
    };

    it('creates, lists, reads and deletes subscriptions as an ADMIN only, the secret shown once; a bystander sees and deletes nothing', async () => {
      expect((await member('POST', '/api/v1/webhooks', { url: `${receiver.baseUrl}/m`, events: ['POLICY_DEPLOYED'] })).status).toBe(403);
      expect((await member('GET', '/api/v1/webhooks')).status).toBe(403);

      const created = await subscribe(crud, '/crud', ['POLICY_DEPLOYED', 'WORKFLOW_FAILED']);
      expect(created).toEqual({
        id: expect.any(String),
        url: `${receiver.baseUrl}/crud`,
        events: ['POLICY_DEPLOYED', 'WORKFLOW_FAILED'],
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_/),
      });
      const { secret: _shownOnce, ...shown } = created;
      expect((await crud('GET', `/api/v1/webhooks/${created.id}`)).body).toEqual(shown);
      expect((await crud('GET', '/api/v1/webhooks')).body).toEqual({ content: [shown], totalElements: 1, totalPages: 1, page: 0, size: 20 });
      expect((await crud('GET', '/api/v1/webhooks?page=1&size=1')).body).toEqual({ content: [], totalElements: 1, totalPages: 1, page: 1, size: 1 });

      // Another tenant's subscription is nowhere to be found, and stays.
      expect((await bystander('GET', '/api/v1/webhooks')).body).toMatchObject({ content: [], totalElements: 0 });
      for (const [method, path] of [
        ['GET', `/api/v1/webhooks/${created.id}`],
        ['DELETE', `/api/v1/webhooks/${created.id}`],
        ['GET', `/api/v1/webhooks/${created.id}/deliveries`],
        ['POST', `/api/v1/webhooks/${created.id}/deliveries/dlv_0/redeliver`],
      ] as const) {
        const answer = await bystander<{ code: string }>(method, path);
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.body.code).toBe('ERR_WEBHOOK_NOT_FOUND');
      }
      expect((await crud('GET', `/api/v1/webhooks/${created.id}`)).status).toBe(200);

      expect((await crud('DELETE', `/api/v1/webhooks/${created.id}`)).status).toBe(204);
      expect((await crud('GET', `/api/v1/webhooks/${created.id}`)).status).toBe(404);
      expect((await crud('DELETE', `/api/v1/webhooks/${created.id}`)).status).toBe(404);
    });

    it('refuses bad input with 400 and a fourth subscription with 409, changing nothing', async () => {
      const url = `${receiver.baseUrl}/bad`;
      for (const [body, code, message] of [
        [{ url, events: ['NO_SUCH_EVENT'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /events/],
        [{ url, events: ['POLICY_DEPLOYED', 'POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /twice/],
        [{ url, events: [] }, 'ERR_WEBHOOK_REQUEST_INVALID', /non-empty/],
        [{ url, events: ['POLICY_DEPLOYED'], secret: 'mine' }, 'ERR_WEBHOOK_REQUEST_INVALID', /secret/],
        [{ url: 'not-a-url', events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /absolute URL/],
        [{ url: ` ${url}`, events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /spaces, control characters/],
        [{ url: url.replace('127.0', '127\n.0'), events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /spaces, control characters/],
        [{ url: `http://hooks.example.com\\@127.0.0.1:${receiver.port}/`, events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /spaces, control characters/],
        [{ url: 'http://hooks.example.com:0/', events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /port from 1 to 65535/],
        [{ url: `${url}/${'a'.repeat(2100)}`, events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /2048/],
        [{ url: `http://user:pw@127.0.0.1:${receiver.port}/`, events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_URL_NOT_ALLOWED', /credentials/],
        [{ events: ['POLICY_DEPLOYED'] }, 'ERR_WEBHOOK_REQUEST_INVALID', /url/],
        [[], 'ERR_WEBHOOK_REQUEST_INVALID', /JSON object/],
      ] as const) {
        const answer = await crud<{ code: string; error: string }>('POST', '/api/v1/webhooks', body);
        expect(answer.status, JSON.stringify(body).slice(0, 100)).toBe(400);
        expect(answer.body.code).toBe(code);
        expect(answer.body.error).toMatch(message);
      }
      expect((await crud<Page<Subscription>>('GET', '/api/v1/webhooks')).body.totalElements).toBe(0);
      expect((await crud('GET', '/api/v1/webhooks?size=101')).status).toBe(400);
      // The most the OpenAPI document allows, and one more.
      expect((await crud('GET', '/api/v1/webhooks?page=1000000')).status).toBe(200);
      expect((await crud('GET', '/api/v1/webhooks?page=1000001')).status).toBe(400);

      const kept = [];
      for (let i = 0; i < 3; i += 1) kept.push(await subscribe(crud, `/quota-${i}`, ['POLICY_DEPLOYED']));
      const over = await crud<{ code: string }>('POST', '/api/v1/webhooks', { url, events: ['POLICY_DEPLOYED'] });
      expect(over.status).toBe(409);
      expect(over.body.code).toBe('ERR_WEBHOOK_SUBSCRIPTION_LIMIT');
      for (const subscription of kept) expect((await crud('DELETE', `/api/v1/webhooks/${subscription.id}`)).status).toBe(204);
    });

    it('delivers a deploy, a workflow\'s completion and an anomaly\'s detection and status change, signed, to the subscribed tenant only', async () => {
      const main = await subscribe(admin, '/main', ['POLICY_DEPLOYED', 'WORKFLOW_COMPLETED', 'ANOMALY_DETECTED', 'ANOMALY_STATUS_CHANGED']);
      const other = await subscribe(bystander, '/bystander', ['POLICY_DEPLOYED', 'WORKFLOW_COMPLETED', 'ANOMALY_DETECTED', 'ANOMALY_STATUS_CHANGED']);
      const version = await deploy(2);

      const [deployed] = await receiver.waitFor('/main', 1);
      const body = verified(deployed!, main.secret!);
      expect(body).toEqual({
        id: expect.stringMatching(/^audit-/),
        type: 'POLICY_DEPLOYED',
        occurredAt: expect.any(String),
        data: expect.objectContaining({ policyModule: 'acme.hooks', version, versionId: `acme.hooks@${version}`, activated: true, actorId: 'admin-of-acme' }),
      });

      const started = await member<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.hooks', workflow: 'approve', context: { amount: 5 } });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const completed = verified((await receiver.waitFor('/main', 2))[1]!, main.secret!);
      expect(completed).toMatchObject({
        id: expect.stringMatching(new RegExp(`^workflow-${started.body.workflowId}-\\d+$`)),
        type: 'WORKFLOW_COMPLETED',
        data: { workflowId: started.body.workflowId, workflow: 'approve', policyModule: 'acme.hooks', version, status: 'COMPLETED', finalResult: true },
      });

      // An anomaly as the detector opens one (stored with its audit record), then triaged over HTTP.
      const { MONGODB_URL: mongodbUrl, MONGODB_DATABASE: mongodbDatabase } = deployment.env;
      const store = await openStore({ sqlitePath: join(deployment.dataDir, SQLITE_FILE_NAME), ...(mongodbUrl ? { mongodbUrl, mongodbDatabase } : {}) });
      const [anomaly] = await seedAnomalies(store, 'acme', [{ type: 'HIGH_FAILURE_RATE', policyModule: 'acme.hooks', policyFunction: 'price', version }]).finally(() => store.close());
      const detected = verified((await receiver.waitFor('/main', 3))[2]!, main.secret!);
      expect(detected).toMatchObject({ type: 'ANOMALY_DETECTED', data: { anomalyId: anomaly!.id, type: 'HIGH_FAILURE_RATE', policyModule: 'acme.hooks', policyFunction: 'price' } });
      expect(detected.data).not.toHaveProperty('metrics');
      const triaged = await admin('PATCH', `/api/v1/audit/anomalies/${anomaly!.id}/status`, { status: 'DISMISSED', note: 'known load test' });
      expect(triaged.status, JSON.stringify(triaged.body)).toBe(200);
      const changed = verified((await receiver.waitFor('/main', 4))[3]!, main.secret!);
      expect(changed).toMatchObject({ type: 'ANOMALY_STATUS_CHANGED', data: { anomalyId: anomaly!.id, from: 'OPEN', to: 'DISMISSED', note: 'known load test' } });

      const listed = await until('four deliveries kept as SUCCEEDED', async () => {
        const found = await deliveries(admin, main.id);
        return found.length === 4 && found.every((d) => d.status === 'SUCCEEDED') ? found : undefined;
      });
      expect(listed.map((d) => d.type)).toEqual(['ANOMALY_STATUS_CHANGED', 'ANOMALY_DETECTED', 'WORKFLOW_COMPLETED', 'POLICY_DEPLOYED']);
      expect(listed[3]).toEqual({
        id: deployed!.headers['x-policy-webhook-id'],
        eventId: body.id,
        type: 'POLICY_DEPLOYED',
        status: 'SUCCEEDED',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        createdAt: expect.any(String),
      });
      // Each event went out once, and nothing of acme's reached the bystander's receiver.
      expect(receiver.received.filter((r) => r.path === '/main')).toHaveLength(4);
      expect(receiver.received.filter((r) => r.path === '/bystander')).toEqual([]);
      expect(await deliveries(bystander, other.id)).toEqual([]);
      expect((await admin('GET', `/api/v1/webhooks/${other.id}/deliveries`)).status).toBe(404);
      for (const id of [main.id]) expect((await admin('DELETE', `/api/v1/webhooks/${id}`)).status).toBe(204);
      expect((await bystander('DELETE', `/api/v1/webhooks/${other.id}`)).status).toBe(204);
    }, 60_000);

    it('retries through a 500, leaves a delivery DEAD after its last attempt, and redelivers it on request', async () => {
      const flaky = await subscribe(admin, '/flaky', ['POLICY_DEPLOYED']);
      const down = await subscribe(admin, '/down', ['POLICY_DEPLOYED']);
      receiver.script('/flaky', [500, 200]);
      receiver.script('/down', [500, 503, 500]);
      await deploy(3);

      const [first, second] = await receiver.waitFor('/flaky', 2);
      expect(second!.headers['x-policy-webhook-id']).toBe(first!.headers['x-policy-webhook-id']);
      expect(second!.body).toBe(first!.body);
      verified(second!, flaky.secret!);
      const retried = await until('the flaky delivery SUCCEEDED', async () => (await deliveries(admin, flaky.id)).find((d) => d.status === 'SUCCEEDED'));
      expect(retried).toMatchObject({ attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });

      await receiver.waitFor('/down', 3);
      const dead = await until('the delivery DEAD', async () => (await deliveries(admin, down.id)).find((d) => d.status === 'DEAD'));
      expect(dead).toMatchObject({ attempts: 3, lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: null });

      // Asked for many times at once, a redelivery is queued once per attempts made: those asked
      // before it ran share one job, those asked after it ran (if any) the next.
      const asked = await Promise.all(Array.from({ length: 25 }, () => admin<Delivery>('POST', `/api/v1/webhooks/${down.id}/deliveries/${dead.id}/redeliver`)));
      for (const again of asked) {
        expect(again.status).toBe(202);
        expect(again.body).toMatchObject({ id: dead.id, status: 'PENDING' });
      }
      const attemptsSeen = new Set(asked.map((again) => again.body.attempts));
      expect(Math.min(...attemptsSeen)).toBe(3);
      const [, , , redelivered] = await receiver.waitFor('/down', 4);
      verified(redelivered!, down.secret!);
      expect(redelivered!.headers['x-policy-webhook-id']).toBe(dead.id);
      const succeeded = await until('the redeliveries SUCCEEDED', async () =>
        (await deliveries(admin, down.id)).find((d) => d.status === 'SUCCEEDED' && d.attempts === 3 + attemptsSeen.size),
      );
      expect(succeeded).toMatchObject({ id: dead.id, lastStatusCode: 200 });
      expect(await redeliveryJobsOf(dead.id)).toHaveLength(attemptsSeen.size);
      expect(receiver.received.filter((r) => r.path === '/down')).toHaveLength(3 + attemptsSeen.size);

      const unknown = await admin<{ code: string }>('POST', `/api/v1/webhooks/${down.id}/deliveries/dlv_unknown/redeliver`);
      expect(unknown.status).toBe(404);
      // A delivery of another subscription is not this one's.
      expect((await admin('POST', `/api/v1/webhooks/${flaky.id}/deliveries/${dead.id}/redeliver`)).status).toBe(404);
    }, 60_000);
  });
}

webhooksThroughTheService('webhooks through the service on SQLite, with private networks and http allowed for a receiver on loopback', () => ({ env: {}, dispose: async () => {} }));

describeWithMongo('webhooks on MongoDB', (url) => {
  webhooksThroughTheService('webhooks through the service on MongoDB, with private networks and http allowed for a receiver on loopback', () => {
    const database = uniqueDatabaseName('pe_test_webhooks');
    return { env: { MONGODB_URL: url, MONGODB_DATABASE: database }, dispose: () => dropMongoDatabase(url, database) };
  });
});

describe('webhooks with the default safety settings', () => {
  const deployment = separateProcesses('webhooks-safe', () => ({ env: {}, dispose: async () => {} }), {
    WEBHOOK_MAX_ATTEMPTS: '1',
    WEBHOOK_FOLLOW_INTERVAL_MS: '200',
  });
  let receiver: WebhookReceiver;
  let admin: Call;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const api = await deployment.start('all');
    admin = await caller(deployment, api, 'acme', 'ADMIN');
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
  });

  it('refuses plain http and loopback, private, CGNAT and metadata addresses at subscription', async () => {
    for (const [url, message] of [
      [`http://hooks.example.com/in`, /https:\/\//],
      [`http://127.0.0.1:${receiver.port}/in`, /https:\/\//],
      [`https://127.0.0.1:${receiver.port}/in`, /loopback/],
      ['https://10.0.0.7/in', /private/],
      ['https://192.168.1.10/in', /private/],
      ['https://100.64.0.1/in', /CGNAT/],
      ['https://169.254.169.254/latest/meta-data/', /metadata/],
      ['https://[fd00:ec2::254]/', /unique-local/],
      ['https://[::1]/', /loopback/],
      ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
      ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped/],
      ['https://[64:ff9b:1::a9fe:a9fe]/', /translation/],
      ['https://[2002:a9fe:a9fe::]/', /6to4/],
      ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /Teredo/],
    ] as const) {
      const answer = await admin<{ code: string; error: string }>('POST', '/api/v1/webhooks', { url, events: ['POLICY_DEPLOYED'] });
      expect(answer.status, url).toBe(400);
      expect(answer.body.code).toBe('ERR_WEBHOOK_URL_NOT_ALLOWED');
      expect(answer.body.error).toMatch(message);
    }
    expect((await admin<Page<Subscription>>('GET', '/api/v1/webhooks')).body.totalElements).toBe(0);
  });

  it('takes a host name, and refuses the attempt once it resolves to loopback', async () => {
    const created = await admin<Subscription>('POST', '/api/v1/webhooks', { url: `https://localhost:${receiver.port}/ssrf`, events: ['POLICY_DEPLOYED'] });
    expect(created.status).toBe(201);
    expect((await admin('POST', '/api/v1/policies', { source: MODULE(7) })).status).toBe(201);
    const dead = await until('the delivery DEAD', async () => (await admin<Page<Delivery>>('GET', `/api/v1/webhooks/${created.body.id}/deliveries`)).body.content.find((d) => d.status === 'DEAD'));
    expect(dead).toMatchObject({ attempts: 1, lastStatusCode: null, lastError: expect.stringMatching(/^localhost resolves to an? .*loopback.* address$/) });
    // The range is named, never the address the name resolved to.
    expect(dead.lastError).not.toMatch(/127\.0\.0\.1|::1/);
    expect(receiver.received).toEqual([]);
  }, 60_000);
});

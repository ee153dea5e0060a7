// The `webhook-deliver` queue on real Redis with deliverers answered in the test: a tenant whose
// receiver hangs holds its own slots and never the worker, so another tenant's delivery queued
// behind its backlog goes out meanwhile; failed attempts are retried after the backoff and the
// last is told it is the last; a delivery is queued once per id.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { createWebhookJobQueue, startWebhookWorker, type WebhookDeliverer, type WebhookJobQueue, type WebhookWorker } from '../../src/webhooks/index.js';
import { DeliveryAttemptFailed } from '../../src/webhooks/webhook-deliverer.js';
import { REDIS_URL, removeRedisPrefix } from '../support/index.js';

interface Attempt {
  tenantId: string;
  deliveryId: string;
  last: boolean;
  retryInMs: number;
}

describe('webhook-deliver jobs', () => {
  let prefix: string;
  let queue: WebhookJobQueue;
  let worker: WebhookWorker | undefined;
  let inspectClient: Redis;
  let inspect: Queue;
  let attempts: Attempt[];
  let inFlight: Map<string, number>;
  let mostInFlight: Map<string, number>;

  beforeEach(() => {
    prefix = `test-${randomUUID()}`;
    attempts = [];
    inFlight = new Map();
    mostInFlight = new Map();
    queue = createWebhookJobQueue({ connection: REDIS_URL, prefix, retries: { attempts: 3, backoffMs: 50 } });
    inspectClient = createRedisClient(REDIS_URL, 'test-inspect');
    inspect = new Queue(QUEUE_NAMES.webhookDeliver, { connection: inspectClient, prefix: queuePrefix(QUEUE_NAMES.webhookDeliver, prefix) });
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await queue.close();
    await inspect.close();
    await inspectClient.quit();
    await removeRedisPrefix(prefix);
  });

  /** A deliverer that records each attempt and answers as `answer` says, counting each tenant's attempts in flight. */
  function deliverer(answer: (attempt: Attempt) => Promise<void>): WebhookDeliverer {
    return {
      async attempt(tenantId, deliveryId, { last, retryInMs }) {
        const attempt = { tenantId, deliveryId, last, retryInMs };
        attempts.push(attempt);
        const now = (inFlight.get(tenantId) ?? 0) + 1;
        inFlight.set(tenantId, now);
        mostInFlight.set(tenantId, Math.max(mostInFlight.get(tenantId) ?? 0, now));
        try {
          await answer(attempt);
        } finally {
          inFlight.set(tenantId, inFlight.get(tenantId)! - 1);
        }
      },
    };
  }

  const until = async (what: string, done: () => boolean | Promise<boolean>) => {
    for (let round = 0; round < 600; round += 1) {
      if (await done()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`gave up waiting for ${what}`);
  };

  it('lets another tenant\'s delivery pass a tenant whose receiver hangs', async () => {
    let release!: () => void;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    worker = await startWebhookWorker({
      connection: REDIS_URL,
      prefix,
      deliverer: deliverer((attempt) => (attempt.tenantId === 'stuck' ? hanging : Promise.resolve())),
      concurrency: 4,
      perTenant: 2,
      turnWaitMs: 50,
    });
    for (let i = 0; i < 20; i += 1) await queue.enqueue('stuck', `dlv_stuck_${i}`);
    await queue.enqueue('other', 'dlv_other');
    // The other tenant's delivery went out while the stuck tenant's attempts still hang.
    await until('the other tenant\'s delivery', () => attempts.some((a) => a.tenantId === 'other'));
    expect(inFlight.get('stuck')).toBe(2);
    expect(mostInFlight.get('stuck')).toBe(2);
    release();
    await until('every delivery', async () => (await inspect.getJobCounts('completed')).completed === 21);
    // Each stuck delivery was attempted once: waiting for a slot is no attempt.
    expect(new Set(attempts.filter((a) => a.tenantId === 'stuck').map((a) => a.deliveryId)).size).toBe(20);
    expect(attempts.filter((a) => a.tenantId === 'stuck')).toHaveLength(20);
    expect(mostInFlight.get('stuck')).toBe(2);
    // However often a job went back to wait for a slot, its attempt is still its first of three.
    expect(attempts.filter((a) => a.tenantId === 'stuck').every((a) => !a.last && a.retryInMs === 50)).toBe(true);
  });

  it('retries a failed attempt after the doubling backoff, tells the last it is the last, and queues a delivery once', async () => {
    worker = await startWebhookWorker({
      connection: REDIS_URL,
      prefix,
      deliverer: deliverer(async (attempt) => {
        if (!attempt.last) throw new DeliveryAttemptFailed('HTTP 500');
      }),
      concurrency: 2,
      perTenant: 1,
    });
    await queue.enqueue('acme', 'dlv_1');
    await queue.enqueue('acme', 'dlv_1');
    await until('three attempts', async () => (await inspect.getJobCounts('completed')).completed === 1);
    expect(attempts.map(({ last, retryInMs }) => [last, retryInMs])).toEqual([
      [false, 50],
      [false, 100],
      [true, 200],
    ]);

    // A requeue of a delivery whose own job is kept as finished queues its remaining attempts, once.
    await queue.requeue('acme', 'dlv_1', 1);
    await queue.requeue('acme', 'dlv_1', 1);
    await until('the requeued attempts', () => attempts.length === 5);
    expect(attempts.slice(3).map(({ deliveryId, last }) => [deliveryId, last])).toEqual([
      ['dlv_1', false],
      ['dlv_1', true],
    ]);
    await until('the requeued job finished', async () => (await inspect.getJobCounts('completed')).completed === 2);

    // A redelivery is one more attempt, the last, whatever became of the earlier ones.
    await queue.redeliver('acme', 'dlv_1', 5);
    await until('the redelivery', () => attempts.length === 6);
    expect(attempts[5]).toMatchObject({ deliveryId: 'dlv_1', last: true });
  });

  it('queues no spare attempts for a delivery whose own job still waits', async () => {
    await queue.enqueue('acme', 'dlv_waiting');
    await queue.requeue('acme', 'dlv_waiting', 0);
    expect(await inspect.getJobCounts('waiting')).toEqual({ waiting: 1 });
    // Lost with Redis's data: the sweep's requeue queues it again.
    await inspect.obliterate({ force: true });
    await queue.requeue('acme', 'dlv_waiting', 0);
    expect((await inspect.getJobs(['waiting'])).map((job) => [job.id, job.opts.attempts])).toEqual([['dlv_waiting.after-0', 3]]);
  });

  it('queues one redelivery of a delivery however often it is asked for, until that one made its attempt', async () => {
    for (let i = 0; i < 50; i += 1) await queue.redeliver('acme', 'dlv_dead', 3);
    // Its attempt made, the delivery has 4 attempts: a redelivery asked for then is a new one.
    await queue.redeliver('acme', 'dlv_dead', 4);
    await queue.redeliver('acme', 'dlv_dead', 4);
    const queued = (await inspect.getJobs(['waiting'])).map((job) => [job.name, job.id, job.opts.attempts]);
    expect(queued.sort()).toEqual([
      ['redeliver', 'dlv_dead.redeliver-3', 1],
      ['redeliver', 'dlv_dead.redeliver-4', 1],
    ]);
  });
});

import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { createRedisClient, QUEUE_NAMES, queuePrefix, type RedisConnection } from '../../jobs/index.js';
import { DELIVERY_TIMEOUT_MS } from '../webhook-sender.js';
import { DeliveryAttemptFailed, type WebhookDeliverer } from '../webhook-deliverer.js';
import { createTenantSlots } from './tenant-slots.js';

/** A `webhook-deliver` job: one delivery of one tenant. */
export interface WebhookDeliverJobData {
  tenantId: string;
  deliveryId: string;
}

/** How often a delivery is tried and how far apart (WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF_BASE_MS). */
export interface DeliveryRetries {
  attempts: number;
  /** The wait after the first failure; each further one doubles it. */
  backoffMs: number;
}

const KEEP_FINISHED = { count: 1000 } as const;
/** How long the first ask for a redelivery keeps later asks of the same attempts made from doing it again (after it, the kept job still does). */
const REDELIVERY_CLAIM_MS = 10 * 60_000;
/** A job in one of these states will still make an attempt. */
const LIVE_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/** The wait after `failures` failed attempts: backoffMs, 2·backoffMs, 4·backoffMs, … (BullMQ's exponential backoff). */
export function retryDelayMs(retries: DeliveryRetries, failures: number): number {
  return retries.backoffMs * 2 ** (failures - 1);
}

export interface WebhookJobQueue {
  /** Queues a delivery's attempts; a no-op while a job for it exists. */
  enqueue(tenantId: string, deliveryId: string): Promise<void>;
  /**
   * Queues one more attempt of a delivery now, whatever became of its earlier ones: one job per
   * delivery and attempts made, so asking again before that attempt ran queues nothing more.
   * `beforeQueuing` (the delivery's PENDING mark) runs only for the first ask of the attempts made,
   * across every process: asks at once would otherwise each write the mark, and a mark written
   * while the attempt records its outcome can undo that outcome where the store loses a racing
   * update of one document (FerretDB).
   */
  redeliver(tenantId: string, deliveryId: string, attemptsMade: number, beforeQueuing?: () => Promise<void>): Promise<void>;
  /**
   * Queues the attempts a delivery has left after `attemptsMade` (at least one), for a delivery
   * whose job was lost: nothing while its own job still waits or runs (a busy tenant's backlog),
   * and one job per delivery and attempts made, so repeated sweeps queue it once.
   */
  requeue(tenantId: string, deliveryId: string, attemptsMade: number): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookJobQueue(options: { connection: RedisConnection; prefix?: string; retries: DeliveryRetries }): WebhookJobQueue {
  const client = createRedisClient(options.connection, 'webhook-deliver-queue');
  const prefix = queuePrefix(QUEUE_NAMES.webhookDeliver, options.prefix);
  const queue = new Queue<WebhookDeliverJobData>(QUEUE_NAMES.webhookDeliver, { connection: client, prefix });
  // Failures reach callers through the rejected call.
  queue.on('error', () => {});
  const kept = { removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FINISHED };
  return {
    async enqueue(tenantId, deliveryId) {
      await queue.add(
        'deliver',
        { tenantId, deliveryId },
        { ...kept, jobId: deliveryId, attempts: options.retries.attempts, backoff: { type: 'exponential', delay: options.retries.backoffMs } },
      );
    },
    async requeue(tenantId, deliveryId, attemptsMade) {
      const own = await queue.getJob(deliveryId);
      if (own !== undefined && LIVE_STATES.has(await own.getState())) return;
      const attempts = Math.max(1, options.retries.attempts - attemptsMade);
      await queue.add(
        'requeue',
        { tenantId, deliveryId },
        { ...kept, jobId: `${deliveryId}.after-${attemptsMade}`, attempts, backoff: { type: 'exponential', delay: options.retries.backoffMs } },
      );
    },
    async redeliver(tenantId, deliveryId, attemptsMade, beforeQueuing) {
      const jobId = `${deliveryId}.redeliver-${attemptsMade}`;
      const claim = `${prefix}:claim:${jobId}`;
      if ((await client.set(claim, '1', 'PX', REDELIVERY_CLAIM_MS, 'NX')) === null) return;
      try {
        await beforeQueuing?.();
        await queue.add('redeliver', { tenantId, deliveryId }, { ...kept, jobId, attempts: 1 });
      } catch (error) {
        // Nothing was queued: the next ask may try again.
        await client.del(claim).catch(() => undefined);
        throw error;
      }
    },
    async close() {
      await queue.close();
      await client.quit().catch(() => undefined);
    },
  };
}

export interface WebhookWorkerOptions {
  connection: RedisConnection;
  prefix?: string;
  deliverer: WebhookDeliverer;
  /** Attempts this process runs at once (WEBHOOK_DELIVERY_CONCURRENCY). */
  concurrency: number;
  /** Attempts of one tenant in flight at once in the whole deployment (WEBHOOK_TENANT_CONCURRENCY). */
  perTenant: number;
  /** How long a job waits for its tenant's turn when the tenant's slots are all taken. Default DELIVERY_TIMEOUT_MS. */
  turnWaitMs?: number;
  onError?: (error: Error) => void;
}

export interface WebhookWorker {
  readonly worker: Worker<WebhookDeliverJobData>;
  close(): Promise<void>;
}

/**
 * Consumes `webhook-deliver`. An attempt holds one of its tenant's slots: a job whose tenant has
 * `perTenant` attempts in flight goes back to wait (delayed, no attempt counted) and the worker
 * takes the next job, so a tenant whose receiver hangs for the whole time-out holds `perTenant`
 * attempts and never the worker: the other tenants' deliveries pass it. Failed attempts are retried
 * by BullMQ after the exponential backoff; the last one leaves the delivery DEAD.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<WebhookWorker> {
  const turnWaitMs = options.turnWaitMs ?? DELIVERY_TIMEOUT_MS;
  const slotClient = createRedisClient(options.connection, 'webhook-deliver-slots');
  const prefix = queuePrefix(QUEUE_NAMES.webhookDeliver, options.prefix);
  const slots = createTenantSlots(slotClient, prefix, options.perTenant);
  // A hold outlives the longest attempt: the time-out, plus the store's reads and write around it.
  const holdMs = DELIVERY_TIMEOUT_MS * 3;

  const attemptOf = async (job: Job<WebhookDeliverJobData>, token?: string) => {
    const { tenantId, deliveryId } = job.data;
    const holder = job.id ?? deliveryId;
    if (!(await slots.take(tenantId, holder, holdMs))) {
      // Jitter spreads a busy tenant's jobs so they do not all come back at once.
      await job.moveToDelayed(Date.now() + turnWaitMs + Math.floor(Math.random() * turnWaitMs), token);
      throw new DelayedError();
    }
    try {
      const attempts = job.opts.attempts ?? 1;
      // This attempt, failed, would be the job's failure number attemptsMade + 1.
      const failures = job.attemptsMade + 1;
      const backoff = job.opts.backoff;
      const backoffMs = typeof backoff === 'object' ? backoff.delay ?? 0 : backoff ?? 0;
      await options.deliverer.attempt(tenantId, deliveryId, { last: failures >= attempts, retryInMs: retryDelayMs({ attempts, backoffMs }, failures) });
    } finally {
      await slots.give(tenantId, holder);
    }
  };

  const workerClient = createRedisClient(options.connection, 'webhook-deliver-worker');
  const worker = new Worker<WebhookDeliverJobData>(QUEUE_NAMES.webhookDeliver, attemptOf, {
    connection: workerClient,
    prefix,
    concurrency: options.concurrency,
  });
  worker.on('error', (error) => options.onError?.(error));
  worker.on('failed', (_job, error) => {
    if (!(error instanceof DeliveryAttemptFailed)) options.onError?.(error);
  });
  const close = async () => {
    await worker.close();
    await workerClient.quit().catch(() => undefined);
    await slotClient.quit().catch(() => undefined);
  };
  try {
    await worker.waitUntilReady();
  } catch (error) {
    // A process whose start failed leaves no connection behind.
    await close();
    throw error;
  }
  return {
    worker,
    close,
  };
}

import { redisConnection } from '../config/index.js';
import { observeWorker } from '../metrics/index.js';
import { createChainFollower, createStrandedSweep, createWebhookDeliverer, postWebhook, startRoundSchedule, startWebhookWorker } from '../webhooks/index.js';
import type { RunningPart } from './running-part.js';
import type { Runtime } from './runtime.js';
import { destinationRulesOf, webhookDispatchOf, webhookJobQueueOf } from './webhook-settings.js';

/** How often a worker looks for deliveries whose jobs were lost (one worker per interval does it). */
const STRANDED_SWEEP_INTERVAL_MS = 60_000;

/** Webhook deliveries (`webhook-deliver`) and the rounds that find the audited events to deliver. */
export async function startWebhookProcessor(runtime: Runtime): Promise<RunningPart> {
  const { config, logger, store } = runtime;
  const rules = destinationRulesOf(config);
  const queue = webhookJobQueueOf(config);
  const dispatch = webhookDispatchOf(runtime, queue);
  let worker: Awaited<ReturnType<typeof startWebhookWorker>>;
  try {
    worker = await startWebhookWorker({
      connection: redisConnection(config),
      prefix: config.REDIS_KEY_PREFIX,
      deliverer: createWebhookDeliverer({ webhooks: store.webhooks, send: (post) => postWebhook(post, rules) }),
      concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
      perTenant: config.WEBHOOK_TENANT_CONCURRENCY,
      onError: (error) => logger.warn({ err: error }, 'webhook worker error'),
    });
  } catch (error) {
    await queue.close();
    throw error;
  }
  observeWorker(worker.worker, runtime.metrics);
  const follower = createChainFollower({
    audit: store.audit,
    webhooks: store.webhooks,
    dispatch: dispatch.dispatch,
    onError: (error, tenantId) => logger.warn({ err: error, tenantId }, 'webhook events of a tenant not read; the next round tries again'),
  });
  const schedule = startRoundSchedule({
    name: 'follow',
    redis: runtime.redis,
    prefix: config.REDIS_KEY_PREFIX,
    intervalMs: config.WEBHOOK_FOLLOW_INTERVAL_MS,
    async round(after) {
      const round = await follower.round(after);
      if (round.events > 0) logger.debug(round, 'webhook events dispatched');
      return round;
    },
    onError: (error) => logger.warn({ err: error }, 'webhook event round failed (the next interval tries again)'),
  });
  const stranded = createStrandedSweep({
    webhooks: store.webhooks,
    requeue: (tenantId, delivery) => queue.requeue(tenantId, delivery.id, delivery.attempts),
    onError: (error, tenantId) => logger.warn({ err: error, tenantId }, 'overdue webhook deliveries of a tenant not queued again; the next sweep tries again'),
  });
  const strandedSchedule = startRoundSchedule({
    name: 'stranded',
    redis: runtime.redis,
    prefix: config.REDIS_KEY_PREFIX,
    intervalMs: STRANDED_SWEEP_INTERVAL_MS,
    async round(after) {
      const round = await stranded.round(after);
      if (round.requeued > 0 || round.dropped > 0) logger.info(round, 'overdue webhook deliveries queued again or dropped');
      return round;
    },
    onError: (error) => logger.warn({ err: error }, 'overdue webhook deliveries sweep failed (the next interval tries again)'),
  });
  logger.info({ followEveryMs: config.WEBHOOK_FOLLOW_INTERVAL_MS, attempts: config.WEBHOOK_MAX_ATTEMPTS }, 'webhook worker started');
  return {
    name: 'webhook-deliver',
    async stop() {
      await schedule.stop();
      await strandedSchedule.stop();
      await worker.close();
      await queue.close();
    },
  };
}

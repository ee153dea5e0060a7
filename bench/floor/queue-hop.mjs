// The queue hop from raw parts: a plain BullMQ Queue and Worker and an ioredis pub/sub reply.
// Concurrent requests are grouped into one job as the service's dispatcher groups them (its
// defaults: a job leaves when it holds 64 items or 1 ms after its first; while 4 jobs wait for
// answers a due job keeps gathering until one is answered, it is full, or 50 ms passed). The
// worker publishes the job's results on the sender's own channel: one PUBLISH per job and one
// message to read, where BullMQ's QueueEvents would read every event of every job from the
// queue's event stream (added, waiting, active, completed) to learn of the one it waits for.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

const QUEUE_NAME = 'raw-evaluate';
const MAX_ITEMS = 64;
const FLUSH_MS = 1;
const MAX_IN_FLIGHT = 4;
const MAX_HOLD_MS = 50;

const connect = (redisUrl) => new Redis(redisUrl, { maxRetriesPerRequest: null });

/**
 * The sending side: `evaluate(context, note)` resolves with the item's result once its job is
 * answered; the note (what an audit record written by the worker names) travels with the context.
 */
export async function openQueueSender({ redisUrl, prefix }) {
  const replyTo = `${prefix}:replies:${randomUUID()}`;
  const queueClient = connect(redisUrl);
  const subscriber = connect(redisUrl);
  const queue = new Queue(QUEUE_NAME, { connection: queueClient, prefix });
  const waiting = new Map();
  const stats = { jobs: 0, items: 0 };
  let buffer = [];
  let flushTimer = null;
  let holdTimer = null;
  let inFlight = 0;

  subscriber.on('message', (_channel, message) => {
    const { batchId, results } = JSON.parse(message);
    const items = waiting.get(batchId);
    waiting.delete(batchId);
    items.forEach((item, position) => item.resolve(results[position]));
    inFlight -= 1;
    if (holdTimer !== null) send();
  });
  await subscriber.subscribe(replyTo);

  function send() {
    clearTimeout(flushTimer);
    clearTimeout(holdTimer);
    flushTimer = holdTimer = null;
    if (buffer.length === 0) return;
    const items = buffer;
    buffer = [];
    const batchId = randomUUID();
    waiting.set(batchId, items);
    inFlight += 1;
    stats.jobs += 1;
    stats.items += items.length;
    const data = { batchId, replyTo, contexts: items.map((item) => item.context), notes: items.map((item) => item.note) };
    // As the service's jobs: no retry (the caller would be gone), removed once done.
    queue.add('evaluate', data, { jobId: batchId, attempts: 1, removeOnComplete: true, removeOnFail: true }).catch((error) => {
      waiting.delete(batchId);
      inFlight -= 1;
      for (const item of items) item.reject(error);
    });
  }

  function due() {
    flushTimer = null;
    if (inFlight < MAX_IN_FLIGHT) send();
    else holdTimer = setTimeout(send, MAX_HOLD_MS);
  }

  return {
    stats,
    evaluate(context, note = null) {
      return new Promise((resolve, reject) => {
        buffer.push({ context, note, resolve, reject });
        if (buffer.length >= MAX_ITEMS) send();
        else if (flushTimer === null && holdTimer === null) flushTimer = setTimeout(due, FLUSH_MS);
      });
    },
    async close() {
      await queue.close();
      await Promise.all([queueClient.quit(), subscriber.quit()]);
    },
  };
}

/**
 * The working side: a bare BullMQ Worker that answers each job with `evaluateAll(contexts, notes)`
 * and publishes the results to the job's sender. Concurrency as the service's worker on two threads (16 × 2).
 */
export async function startQueueWorker({ redisUrl, prefix, evaluateAll }) {
  const connection = connect(redisUrl);
  const publisher = connect(redisUrl);
  const worker = new Worker(
    QUEUE_NAME,
    async (job) => {
      const { batchId, replyTo, contexts, notes } = job.data;
      const results = await evaluateAll(contexts, notes);
      await publisher.publish(replyTo, JSON.stringify({ batchId, results }));
    },
    { connection, prefix, concurrency: 32 },
  );
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      await Promise.all([connection.quit(), publisher.quit()]);
    },
  };
}

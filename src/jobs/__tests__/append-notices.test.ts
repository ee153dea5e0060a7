import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendNoticeChannel, AUDIT_CHAIN_LOG, createAppendAnnouncer, createAppendListeners, workflowLog, type AppendListeners } from '../append-notices.js';
import { createRedisClient } from '../redis-connection.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const channel = appendNoticeChannel(`test-${randomUUID()}`);
let publisher: Redis;
let listeners: AppendListeners;

beforeAll(async () => {
  publisher = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  listeners = await createAppendListeners({ subscriber: createRedisClient(REDIS_URL, 'test-append-notices'), channel });
});

afterAll(async () => {
  await listeners.close();
  await publisher.quit();
});

/** Resolves with the first `count` sequences `listen` hears. */
function heard(tenantId: string, log: string, count: number): { seqs: Array<number | null>; done: Promise<void>; stop(): void } {
  const seqs: Array<number | null> = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const stop = listeners.listen(tenantId, log, (seq) => {
    seqs.push(seq);
    if (seqs.length === count) resolve();
  });
  return { seqs, done, stop };
}

describe('append notices (real Redis)', () => {
  it('reach the listeners of the tenant’s log only, in order, and no listener once it stopped', async () => {
    const announce = createAppendAnnouncer({ publisher, channel });
    const workflow = heard('acme', workflowLog('w1'), 2);
    const audit = heard('acme', AUDIT_CHAIN_LOG, 1);
    const otherTenant = heard('bystander', workflowLog('w1'), 1);
    const otherWorkflow = heard('acme', workflowLog('w2'), 1);
    // Written by hand: what a process of another version, or anyone with the channel, might send.
    await publisher.publish(channel, 'not json');
    await publisher.publish(channel, JSON.stringify(['acme', workflowLog('w1'), 'three']));
    announce({ tenantId: 'acme', log: workflowLog('w1'), seq: 3 });
    announce({ tenantId: 'acme', log: AUDIT_CHAIN_LOG, seq: 40 });
    announce({ tenantId: 'acme', log: workflowLog('w1'), seq: 4 });
    await Promise.all([workflow.done, audit.done]);
    expect(workflow.seqs).toEqual([3, 4]);
    expect(audit.seqs).toEqual([40]);

    otherTenant.stop();
    otherTenant.stop();
    const again = heard('bystander', workflowLog('w1'), 1);
    announce({ tenantId: 'bystander', log: workflowLog('w1'), seq: 9 });
    await again.done;
    expect([again.seqs, otherTenant.seqs, otherWorkflow.seqs]).toEqual([[9], [], []]);
    for (const listening of [workflow, audit, otherWorkflow, again]) listening.stop();
  });
});

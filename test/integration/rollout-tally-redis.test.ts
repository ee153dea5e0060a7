// The rollout tally in a real Redis: counts and routed sides summed in memory and added by each
// flush (fractional times with HINCRBYFLOAT, whatever the first amount was), the sample bounded,
// rollouts and tenants kept apart.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRolloutTally, SHADOW_SAMPLE_SIZE, type SharedRolloutTally } from '../../src/policies/index.js';
import { connectRedis, removeRedisPrefix } from '../support/index.js';

const prefix = `test-${randomUUID()}`;
let redis: Awaited<ReturnType<typeof connectRedis>>;
let tally: SharedRolloutTally;

beforeAll(async () => {
  redis = await connectRedis();
  tally = createRedisRolloutTally({ redis, keyPrefix: `${prefix}:`, flushMs: 60_000 });
});

afterAll(async () => {
  await tally.close();
  await removeRedisPrefix(prefix);
  await redis.quit();
});

const observe = (side: 'stable' | 'rollout', ok: boolean, executionTimeMs: number, tenantId = 'acme', rollout = 3) =>
  tally.observe({ tenantId, policyModule: 'm.x', rollout, side, ok, executionTimeMs });

describe('the rollout tally', () => {
  it('adds each flush to what earlier flushes stored, times as fractions', async () => {
    observe('rollout', true, 2);
    observe('rollout', false, 1);
    observe('stable', true, 0.25);
    await tally.flush();
    observe('rollout', true, 0.5);
    observe('stable', true, 3);
    await tally.flush();
    const { routed } = await tally.read('acme', 'm.x', 3);
    expect(routed).toEqual({
      stable: { count: 2, failures: 0, timeSum: 3.25, timeSquares: 9.0625 },
      rollout: { count: 3, failures: 1, timeSum: 3.5, timeSquares: 5.25 },
    });
  });

  it('keeps the newest disagreements only, and tenants and rollouts apart', async () => {
    for (let i = 0; i < SHADOW_SAMPLE_SIZE + 5; i += 1) {
      tally.count({
        tenantId: 'acme',
        policyModule: 'm.x',
        rollout: 4,
        outcome: 'disagreed',
        sample: { at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`, policyFunction: 'r', stable: { ok: true, value: i }, shadow: { ok: true, value: 'x'.repeat(5000) }, contextHash: 'h' },
      });
    }
    observe('stable', true, 1, 'bystander');
    await tally.flush();
    const report = await tally.read('acme', 'm.x', 4);
    expect(report.counts).toEqual({ compared: SHADOW_SAMPLE_SIZE + 5, agreed: 0, disagreed: SHADOW_SAMPLE_SIZE + 5, errors: 0, skipped: 0 });
    expect(report.disagreements).toHaveLength(SHADOW_SAMPLE_SIZE);
    expect(report.disagreements[0]!.stable).toEqual({ ok: true, value: SHADOW_SAMPLE_SIZE + 4 });
    expect(report.disagreements[0]!.shadow).toEqual({ ok: true, value: { omitted: '5002 bytes, more than 4096' } });
    expect((await tally.read('bystander', 'm.x', 3)).routed.stable.count).toBe(1);
    expect((await tally.read('acme', 'm.x', 4)).routed.stable.count).toBe(0);
  });
});

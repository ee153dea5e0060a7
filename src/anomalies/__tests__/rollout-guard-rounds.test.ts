import { describe, expect, it } from 'vitest';
import type { PolicyActivation, RunningRollout, RunningRolloutQuery } from '../../policies/index.js';
import { DEFAULT_DETECTION_SETTINGS } from '../detection-settings.js';
import { createRolloutGuard, GUARD_ROLLOUTS_PER_TENANT } from '../rollout-guard.js';

// The store, the tally and the control are the edges of this unit: stand-ins that serve a list of
// running canaries (none worse than its stable version) and record what the guard reads.
function running(tenantId: string, policyModule: string): RunningRollout {
  const activation: PolicyActivation = {
    policyModule,
    seq: 2,
    kind: 'ROLLOUT_STARTED',
    version: 1,
    previousVersion: 1,
    highestDeployed: 1,
    actorId: 'a',
    occurredAt: '2026-01-01T00:00:00.000Z',
    rollout: { version: 2, mode: 'canary', percent: 10, stickyKey: null, captureContexts: false, startedSeq: 2, reason: null, anomalyId: null },
  };
  return { tenantId, activation };
}

function guardOver(all: RunningRollout[], failing: ReadonlySet<string> = new Set()) {
  const read: string[] = [];
  const errors: string[] = [];
  const nothing = { count: 0, failures: 0, timeSum: 0, timeSquares: 0 };
  const guard = createRolloutGuard({
    store: {
      policies: {
        async runningRollouts({ limit, after }: RunningRolloutQuery) {
          const start = after === undefined ? 0 : all.findIndex((r) => r.tenantId === after.tenantId && r.activation.policyModule === after.policyModule) + 1;
          return all.slice(start, start + limit);
        },
      },
      rollups: { totals: async () => [] },
      anomalies: { latest: async () => null },
    },
    tally: {
      async read(tenantId, policyModule) {
        read.push(`${tenantId}/${policyModule}`);
        if (failing.has(policyModule)) throw new Error('the tally did not answer');
        return { counts: { compared: 0, agreed: 0, disagreed: 0, errors: 0, skipped: 0 }, disagreements: [], routed: { stable: nothing, rollout: nothing } };
      },
    },
    control: { abort: async () => Promise.reject(new Error('nothing to abort')) },
    settings: { effective: async () => DEFAULT_DETECTION_SETTINGS },
    onError: (_error, r) => errors.push(r.activation.policyModule),
  });
  return { guard, read, errors };
}

const modules = (count: number) => Array.from({ length: count }, (_, i) => `m.${String(i).padStart(3, '0')}`);

describe('the rollout guard\'s rounds', () => {
  it('look at a tenant\'s rollouts a window at a time, the next window each round, so every one is guarded in turn', async () => {
    const many = modules(120).map((m) => running('busy', m));
    const { guard, read } = guardOver([...many, running('quiet', 'q.one'), ...modules(3).map((m) => running('small', m))]);
    const seen = new Set<string>();
    for (let round = 0; round < 3; round += 1) {
      read.length = 0;
      const report = await guard.round();
      expect(report.checked).toBe(GUARD_ROLLOUTS_PER_TENANT + 1 + 3);
      // The other tenants are looked at in every round.
      expect(read).toContain('quiet/q.one');
      expect(read.filter((r) => r.startsWith('small/'))).toHaveLength(3);
      for (const r of read.filter((r) => r.startsWith('busy/'))) seen.add(r);
    }
    expect(seen.size).toBe(120);
  });

  it('go on past a rollout whose check fails, telling onError, and count it', async () => {
    const { guard, read, errors } = guardOver(modules(5).map((m) => running('acme', m)), new Set(['m.001', 'm.003']));
    const report = await guard.round();
    expect(report).toEqual({ checked: 5, aborted: [], failed: 2 });
    expect(read).toHaveLength(5);
    expect(errors).toEqual(['m.001', 'm.003']);
  });
});

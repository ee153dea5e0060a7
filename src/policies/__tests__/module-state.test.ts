import { describe, expect, it } from 'vitest';
import { moduleState } from '../module-version-log.js';
import type { PolicyActivation } from '../policy-store.js';

const activation = (seq: number, version: number, previousVersion: number | null): PolicyActivation => ({
  policyModule: 'm.x',
  seq,
  kind: seq === 3 ? 'ROLLBACK' : 'DEPLOY',
  version,
  previousVersion,
  highestDeployed: 2,
  actorId: 'a',
  occurredAt: `2026-01-01T00:00:0${seq}.000Z`,
  rollout: null,
});

describe('moduleState', () => {
  it('falls back to the built-in (0) or nothing while the module has no activation', () => {
    expect(moduleState([], 0)).toEqual({ active: 0, changedAt: new Map() });
    expect(moduleState([], null)).toEqual({ active: null, changedAt: new Map() });
  });

  it('takes the newest activation as active and dates every status change', () => {
    const state = moduleState([activation(1, 1, 0), activation(2, 2, 1), activation(3, 1, 2)], 0);
    expect(state.active).toBe(1);
    expect([...state.changedAt].sort()).toEqual([
      [0, '2026-01-01T00:00:01.000Z'],
      [1, '2026-01-01T00:00:03.000Z'],
      [2, '2026-01-01T00:00:03.000Z'],
    ]);
  });
});

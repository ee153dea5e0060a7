import { describe, expect, it } from 'vitest';
import type { PolicyActivation } from '../../store/index.js';
import { detectionWindow, versionStanding } from '../evidence-reader.js';

function activation(seq: number, version: number, occurredAt: string): PolicyActivation {
  return {
    policyModule: 'acme.fees',
    seq,
    kind: 'DEPLOY',
    version,
    previousVersion: seq === 1 ? null : version - 1,
    highestDeployed: version,
    actorId: 'alice',
    occurredAt,
  };
}

const LOG = [activation(1, 1, '2026-01-01T00:00:00.000Z'), activation(2, 2, '2026-01-02T00:00:00.000Z'), activation(3, 1, '2026-01-03T00:00:00.000Z'), activation(4, 3, '2026-01-04T00:00:00.000Z')];
const never = async (): Promise<string | null> => {
  throw new Error('not asked');
};

describe('versionStanding', () => {
  it('names the active version and no supersession for it', async () => {
    expect(await versionStanding(3, LOG, false, never)).toEqual({ activeVersion: 3, supersededSince: null });
  });

  it('dates a supersession from the activation after the last one that activated the version', async () => {
    expect(await versionStanding(1, LOG, false, never)).toEqual({ activeVersion: 3, supersededSince: '2026-01-04T00:00:00.000Z' });
    expect(await versionStanding(2, LOG, false, never)).toEqual({ activeVersion: 3, supersededSince: '2026-01-03T00:00:00.000Z' });
  });

  it('treats the built-in version 0 as active until the first activation, superseded from it', async () => {
    expect(await versionStanding(0, [], true, never)).toEqual({ activeVersion: 0, supersededSince: null });
    expect(await versionStanding(0, LOG, true, never)).toEqual({ activeVersion: 3, supersededSince: '2026-01-01T00:00:00.000Z' });
  });

  it('dates a version that was never activated from when it was stored', async () => {
    const stored = async () => '2026-01-05T00:00:00.000Z';
    expect(await versionStanding(4, LOG, false, stored)).toEqual({ activeVersion: 3, supersededSince: '2026-01-05T00:00:00.000Z' });
    expect(await versionStanding(1, [], false, async () => '2026-01-01T00:00:00.000Z')).toEqual({ activeVersion: null, supersededSince: '2026-01-01T00:00:00.000Z' });
  });
});

describe('detectionWindow', () => {
  it('starts the window at the minute windowMinutes ago and the baseline baselineDays before that', () => {
    const window = detectionWindow(new Date('2026-03-02T12:00:30.500Z'), { windowMinutes: 60, baselineDays: 7 });
    expect(window).toEqual({
      start: '2026-03-02T11:00:00.000Z',
      end: '2026-03-02T12:00:30.500Z',
      baselineStart: '2026-02-23T11:00:00.000Z',
    });
  });
});

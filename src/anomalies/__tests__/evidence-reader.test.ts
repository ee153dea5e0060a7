import { describe, expect, it } from 'vitest';
import type { PolicyActivation } from '../../policies/index.js';
import type { RollupIncrement } from '../../rollups/index.js';
import { openSqliteStore } from '../../store/index.js';
import { detectionWindow, readRoundEvidence, readVersionEvidence, versionStanding } from '../evidence-reader.js';

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
    rollout: null,
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

  it('never counts a running rollout\'s version as superseded, and dates one that only answered in an aborted rollout from the abort', async () => {
    const terms = { version: 4, mode: 'canary' as const, percent: 10, stickyKey: null, captureContexts: false, startedSeq: 5, reason: null, anomalyId: null };
    const started = { ...activation(5, 3, '2026-01-05T00:00:00.000Z'), kind: 'ROLLOUT_STARTED' as const, previousVersion: 3, rollout: terms };
    const aborted = { ...activation(6, 3, '2026-01-06T00:00:00.000Z'), kind: 'ROLLOUT_ABORTED' as const, previousVersion: 3, rollout: { ...terms, reason: 'no' } };
    const stored = async () => '2026-01-04T12:00:00.000Z';
    expect(await versionStanding(4, [...LOG, started], false, stored)).toEqual({ activeVersion: 3, supersededSince: null });
    expect(await versionStanding(4, [...LOG, started, aborted], false, stored)).toEqual({ activeVersion: 3, supersededSince: '2026-01-06T00:00:00.000Z' });
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

describe('readRoundEvidence', () => {
  const NOW = new Date('2026-03-02T12:00:00.000Z');
  const window = detectionWindow(NOW, { windowMinutes: 60, baselineDays: 1 });
  /** Functions f0 to f2, versions 1 to FUNCTION_VERSIONS each: more buckets than one page of the store's totals. */
  const FUNCTION_VERSIONS = 700;
  const turn = async () => {};

  function increment(f: number, version: number, minute: string, count: number): RollupIncrement {
    return { policyModule: 'acme.m', policyFunction: `f${f}`, version, minute, count, failures: 0, timeSum: count, timeSquares: count, max: 1 };
  }

  async function seeded() {
    const store = await openSqliteStore(':memory:');
    const increments: RollupIncrement[] = [];
    for (let f = 0; f < 3; f += 1) {
      for (let v = 1; v <= FUNCTION_VERSIONS; v += 1) {
        increments.push(increment(f, v, '2026-03-02T11:30:00.000Z', v));
        // Every third version has a baseline; versions in the baseline only are not assessed.
        if (v % 3 === 0) increments.push(increment(f, v, '2026-03-02T01:00:00.000Z', 1000 + v));
      }
      increments.push(increment(f, FUNCTION_VERSIONS + 1, '2026-03-02T01:00:00.000Z', 5));
    }
    await store.rollups.add('acme', increments);
    return { store, sources: { rollups: store.rollups, policies: store.policies, builtinModules: new Set<string>() } };
  }

  it('picks the versions after the start in order, goes round the end, and gives each its baseline and its function share', async () => {
    const { store, sources } = await seeded();
    try {
      const functionCount = (FUNCTION_VERSIONS * (FUNCTION_VERSIONS + 1)) / 2;
      const after = { policyModule: 'acme.m', policyFunction: 'f2', version: FUNCTION_VERSIONS - 4 };
      const round = await readRoundEvidence(sources, 'acme', window, { after, limit: 10 }, turn);
      expect(round.versions).toBe(3 * FUNCTION_VERSIONS);
      expect(round.evidence.map((e) => `${e.policyFunction}@${e.version}`)).toEqual([
        ...[3, 2, 1, 0].map((back) => `f2@${FUNCTION_VERSIONS - back}`),
        ...[1, 2, 3, 4, 5, 6].map((v) => `f0@${v}`),
      ]);
      for (const e of round.evidence) {
        expect(e.window?.count).toBe(e.version);
        expect(e.baseline?.count ?? null).toBe(e.version % 3 === 0 ? 1000 + e.version : null);
        expect(e.functionWindowCount).toBe(functionCount);
        expect(e.standing).toEqual({ activeVersion: null, supersededSince: null });
      }
      const all = await readRoundEvidence(sources, 'acme', window, { after: null, limit: 100_000 }, turn);
      expect(all.evidence).toHaveLength(3 * FUNCTION_VERSIONS);
      expect(all.evidence.filter((e) => e.baseline !== null)).toHaveLength(3 * Math.floor(FUNCTION_VERSIONS / 3));
    } finally {
      await store.close();
    }
  });

  it('reads one version with its function share, evaluated in the window or not', async () => {
    const { store, sources } = await seeded();
    try {
      const seen = await readVersionEvidence(sources, 'acme', window, { policyModule: 'acme.m', policyFunction: 'f1', version: 3 });
      expect(seen).toMatchObject({ window: { count: 3 }, baseline: { count: 1003 }, functionWindowCount: (FUNCTION_VERSIONS * (FUNCTION_VERSIONS + 1)) / 2 });
      const quiet = await readVersionEvidence(sources, 'acme', window, { policyModule: 'acme.m', policyFunction: 'f1', version: FUNCTION_VERSIONS + 1 });
      expect(quiet).toMatchObject({ window: null, baseline: { count: 5 } });
    } finally {
      await store.close();
    }
  });
});

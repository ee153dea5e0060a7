import { describe, expect, it } from 'vitest';
import type { ResolvedPolicy } from '../../evaluation/index.js';
import type { RolloutTerms } from '../policy-store.js';
import { createRolloutRoute, stickyPercentile, valueAtPath } from '../rollout-routing.js';

const policy = (version: number): ResolvedPolicy => ({ source: `v${version}`, locale: 'en-US', functionName: 'price', policyModule: 'm.x', version, versionId: `m.x@${version}` });
const stable = policy(1);
const candidate = policy(2);
const terms = (spec: Partial<RolloutTerms>): RolloutTerms => ({
  version: 2,
  mode: 'canary',
  percent: 30,
  stickyKey: null,
  captureContexts: false,
  startedSeq: 4,
  reason: null,
  anomalyId: null,
  ...spec,
});

/** A fixed sequence of "random" numbers. */
const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

describe('valueAtPath', () => {
  it('follows a dotted path through objects, and finds nothing past a missing or non-object step', () => {
    const context = { applicant: { id: 'u-1', address: { zip: '10115' } }, list: [1], empty: null };
    expect(valueAtPath(context, 'applicant.id')).toBe('u-1');
    expect(valueAtPath(context, 'applicant.address.zip')).toBe('10115');
    expect(valueAtPath(context, 'applicant.address')).toEqual({ zip: '10115' });
    expect(valueAtPath(context, 'applicant.name')).toBeUndefined();
    expect(valueAtPath(context, 'empty.id')).toBeUndefined();
    expect(valueAtPath(context, 'applicant.id.length')).toBeUndefined();
    expect(valueAtPath(context, 'toString')).toBeUndefined();
    expect(valueAtPath([{ id: 1 }], '0.id')).toBe(1);
  });
});

describe('stickyPercentile', () => {
  it('is deterministic per rollout and value, spreads values evenly, and differs between rollouts', () => {
    expect(stickyPercentile('t\u0000m\u00004', 'u-1')).toBe(stickyPercentile('t\u0000m\u00004', 'u-1'));
    expect(stickyPercentile('s', 'u\ud800')).toBeNull();
    // Key order of an object value does not matter (canonical JSON).
    expect(stickyPercentile('s', { a: 1, b: 2 })).toBe(stickyPercentile('s', { b: 2, a: 1 }));
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i += 1) counts[Math.floor(stickyPercentile('s', `user-${i}`)! / 10)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(850);
    const moved = Array.from({ length: 200 }, (_, i) => stickyPercentile('rollout-1', i) !== stickyPercentile('rollout-2', i)).filter(Boolean).length;
    expect(moved).toBeGreaterThan(150);
  });
});

describe('createRolloutRoute', () => {
  it('sends a canary\'s share by the sticky value: the same value always gets the same version', () => {
    const route = createRolloutRoute(terms({ stickyKey: 'applicant.id' }), 'salt', stable, candidate, () => {
      throw new Error('a sticky canary draws no random number');
    });
    let canaries = 0;
    for (let i = 0; i < 1000; i += 1) {
      const context = { applicant: { id: `u-${i}` } };
      const first = route.pick(context).answer.version;
      for (let again = 0; again < 3; again += 1) expect(route.pick(context).answer.version).toBe(first);
      expect(first).toBe(stickyPercentile('salt', `u-${i}`) < 30 ? 2 : 1);
      if (first === 2) canaries += 1;
    }
    expect(canaries).toBeGreaterThan(240);
    expect(canaries).toBeLessThan(360);
    // Without a usable sticky value: the stable version, and no side chosen (the guard leaves it out).
    for (const context of [{ applicant: {} }, [1, 2], { applicant: { id: 'u\ud800' } }]) expect(route.pick(context)).toEqual({ answer: stable, shadow: null, routed: null });
    expect(route.pick({ applicant: { id: 'u-1' } }).routed).toEqual({ rollout: 4, side: stickyPercentile('salt', 'u-1')! < 30 ? 'rollout' : 'stable' });
  });

  it('draws a canary without a sticky key per evaluation, and never copies', () => {
    const route = createRolloutRoute(terms({}), 'salt', stable, candidate, sequence(0.1, 0.29, 0.3, 0.9));
    const canary = { answer: candidate, shadow: null, routed: { rollout: 4, side: 'rollout' } };
    const kept = { answer: stable, shadow: null, routed: { rollout: 4, side: 'stable' } };
    expect([1, 2, 3, 4].map(() => route.pick({}))).toEqual([canary, canary, kept, kept]);
  });

  it('answers a shadow with the stable version and copies the share asked to the new one', () => {
    const route = createRolloutRoute(terms({ mode: 'shadow', percent: 50, captureContexts: true }), 'salt', stable, candidate, sequence(0.2, 0.7));
    expect(route.pick({})).toEqual({ answer: stable, shadow: { policy: candidate, rollout: 4, captureContexts: true }, routed: null });
    expect(route.pick({})).toEqual({ answer: stable, shadow: null, routed: null });
  });

  it('leaves the stable version alone when the new version lacks the rule', () => {
    for (const mode of ['shadow', 'canary'] as const) {
      const route = createRolloutRoute(terms({ mode, percent: 100 }), 'salt', stable, null, () => 0);
      expect(route.pick({})).toEqual({ answer: stable, shadow: null, routed: null });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES, queuePrefix } from '../queue-names.js';

describe('queue names', () => {
  it('are kebab-case and distinct', () => {
    const names = Object.values(QUEUE_NAMES);
    for (const name of names) expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(new Set(names).size).toBe(names.length);
  });

  it('get a per-queue Redis Cluster hashtag prefix', () => {
    expect(queuePrefix(QUEUE_NAMES.policyEvaluate)).toBe('{pe:policy-evaluate}');
    expect(queuePrefix(QUEUE_NAMES.workflowRun, 'prod-eu')).toBe('{prod-eu:workflow-run}');
  });

  it('keep a hashtag the operator already chose', () => {
    expect(queuePrefix(QUEUE_NAMES.anomalyDetect, '{pe}')).toBe('{pe}:anomaly-detect');
  });

  it('refuse an empty prefix or one with other characters', () => {
    expect(() => queuePrefix(QUEUE_NAMES.policyEvaluate, '')).toThrow(/queue prefix/);
    expect(() => queuePrefix(QUEUE_NAMES.policyEvaluate, 'a b')).toThrow(/queue prefix/);
  });
});

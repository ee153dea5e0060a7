// What the console says instead of the API's words, without a browser: the actions an anomaly's
// page offers, the one time format, the metrics' labels and units, what a verification found, and
// the UTC times an operator types.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anomalyActionPlan } from '../../console/anomaly-action-plan.js';
import { formatMetric, formatTime, withReadableTimes } from '../../console/format.js';
import { metricLabel } from '../../console/metric-labels.js';
import { parseUtcInput, typedUtcRange } from '../../console/utc-time-input.js';
import { verificationFinding } from '../../console/verification-words.js';

const anomaly = (type: string, version: number, status = 'OPEN') => ({ type, policyModule: 'acme.rates', policyFunction: 'score', versionId: `acme.rates@${version}`, status });
const kindsOf = (plan: ReturnType<typeof anomalyActionPlan>) => plan.flatMap((step) => step.actions.map((action) => `${action.kind}${action.version ?? ''}`));

describe('the recommended actions of an anomaly', () => {
  it('rolls back or tries a canary of the previous version when the failing version is the active one', () => {
    const plan = anomalyActionPlan(anomaly('HIGH_FAILURE_RATE', 3), 3);
    expect(kindsOf(plan)).toEqual(['link', 'rollback2', 'canary2', 'verify']);
    expect(plan[0]!.actions[0]!.href).toBe('#/audit?type=POLICY_EVALUATED&module=acme.rates&function=score&version=3&outcome=failed');
    expect(plan.map((step) => step.text).join(' ')).not.toMatch(/\/api\/|POST|GET /);
  });

  it('sends to the module’s versions instead when the version is not the active one, or has none before it', () => {
    expect(kindsOf(anomalyActionPlan(anomaly('PERFORMANCE_DEGRADATION', 3), 4))).toEqual(['link', 'link', 'verify']);
    expect(anomalyActionPlan(anomaly('PERFORMANCE_DEGRADATION', 3), 4)[2]!.text).toContain('Version 3 is not the active one (version 4 is)');
    expect(kindsOf(anomalyActionPlan(anomaly('HIGH_FAILURE_RATE', 1), 1))).toEqual(['link', 'link', 'verify']);
  });

  it('offers to make a superseded version active again, unless it already is; verification only while open', () => {
    expect(kindsOf(anomalyActionPlan(anomaly('ZOMBIE_VERSION', 2), 5))).toEqual(['link', 'rollback2', 'verify']);
    expect(kindsOf(anomalyActionPlan(anomaly('ZOMBIE_VERSION', 2, 'RESOLVED'), 2))).toEqual(['link']);
  });
});

describe('the console’s one time format', () => {
  it('writes any instant as 24-hour UTC to the minute', () => {
    expect(formatTime('2026-11-28T14:05:59.999Z')).toBe('2026-11-28 14:05 UTC');
    expect(formatTime('2026-11-28T23:30:00+02:00')).toBe('2026-11-28 21:30 UTC');
    expect(formatTime(Date.parse('2026-01-02T03:04:05Z'))).toBe('2026-01-02 03:04 UTC');
    expect(formatTime(null)).toBe('—');
  });

  it('rewrites the ISO instants in the API’s texts', () => {
    expect(withReadableTimes('between 2026-11-28T13:00:00.000Z and 2026-11-28T14:00:00.000Z (threshold 5%)')).toBe('between 2026-11-28 13:00 UTC and 2026-11-28 14:00 UTC (threshold 5%)');
  });
});

describe('the metrics of an anomaly', () => {
  it('has a label for every metric the detection rules record', () => {
    const rules = readFileSync(new URL('../../src/anomalies/detection-rules.ts', import.meta.url), 'utf8');
    const blocks = [...rules.matchAll(/metrics: \{([^}]*)\}/g)].map((match) => match[1]!);
    const names = [...new Set([...blocks.flatMap((block) => [...block.matchAll(/^\s*(\w+)[,:]/gm)].map((match) => match[1]!)), 'windowStart', 'windowEnd'])];
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((name) => metricLabel(name).label === name)).toEqual([]);
  });

  it('shows each in its unit', () => {
    expect(formatMetric('failureRate', 0.125)).toBe('12.5 %');
    expect(formatMetric('windowMeanMs', 42.25)).toBe('42.3 ms');
    expect(formatMetric('ratio', 2.456)).toBe('2.46 ×');
    expect(formatMetric('sampleSize', 12345)).toBe('12,345');
    expect(formatMetric('supersededSince', '2026-11-28T14:05:00Z')).toBe('2026-11-28 14:05 UTC');
  });
});

describe('what a verification found', () => {
  it('says it in words', () => {
    expect(verificationFinding({ outcome: 'OPEN', reason: 'CONDITION_HOLDS' })).toMatch(/^Still happening/);
    expect(verificationFinding({ outcome: 'RESOLVED', reason: 'CONDITION_CLEARED' })).toMatch(/^Cleared/);
    expect(verificationFinding({ outcome: 'RESOLVED', reason: 'NO_TRAFFIC' })).toMatch(/^No evaluations/);
    expect(verificationFinding({ outcome: 'OPEN', reason: 'verification failed: the store did not answer' })).toBe('verification failed: the store did not answer (the anomaly is open).');
  });
});

describe('a UTC time typed as YYYY-MM-DD HH:MM', () => {
  it('is the minute’s start, or its end for a “to” bound', () => {
    expect(parseUtcInput(' 2026-11-28 14:05 ')).toBe('2026-11-28T14:05:00.000Z');
    expect(parseUtcInput('2026-11-28 14:05', { endOfMinute: true })).toBe('2026-11-28T14:05:59.999Z');
    expect(parseUtcInput('')).toBe('');
  });

  it('refuses other spellings and times that do not exist', () => {
    for (const text of ['11/28/2026 2:05 PM', '2026-11-28T14:05', '2026-02-30 10:00', '2026-11-28 24:00', '2026-13-01 00:00']) expect(parseUtcInput(text), text).toBeNull();
  });

  it('names the field to fix in a range', () => {
    expect(typedUtcRange({ value: '2026-11-28 15:00' }, { value: '2026-11-28 14:00' }, 'From', 'To')).toMatchObject({ problem: '“To” is before “From”.' });
    expect(typedUtcRange({ value: 'yesterday' }, { value: '' }, 'From', 'To')).toMatchObject({ problem: expect.stringContaining('“From” must be a UTC time') });
    expect(typedUtcRange({ value: '' }, { value: '2026-11-28 14:00' }, 'From', 'To')).toEqual({ from: '', to: '2026-11-28T14:00:59.999Z' });
  });
});

import { describe, expect, it } from 'vitest';
import { parseIsoTimestamp } from '../iso-timestamp.js';

describe('parseIsoTimestamp', () => {
  it.each([
    ['2026-01-31T09:00:00Z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T09:00Z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31t09:00:00.5z', '2026-01-31T09:00:00.500Z'],
    ['2026-01-31T10:30:00+01:30', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T04:00:00-0500', '2026-01-31T09:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
  ])('normalises %s', (text, expected) => {
    expect(parseIsoTimestamp(text, 'floor')).toBe(expected);
  });

  it('rounds sub-millisecond fractions up for lower bounds and down for upper ones', () => {
    expect(parseIsoTimestamp('2026-01-01T00:00:00.1231Z', 'ceil')).toBe('2026-01-01T00:00:00.124Z');
    expect(parseIsoTimestamp('2026-01-01T00:00:00.1231Z', 'floor')).toBe('2026-01-01T00:00:00.123Z');
    expect(parseIsoTimestamp('2026-01-01T00:00:00.1230000Z', 'ceil')).toBe('2026-01-01T00:00:00.123Z');
    expect(parseIsoTimestamp('2026-01-01T23:59:59.9999Z', 'ceil')).toBe('2026-01-02T00:00:00.000Z');
  });

  it.each([
    'yesterday',
    '2026-01-31',
    '2026-01-31T09:00:00',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-31T24:00:00Z',
    '2026-01-31T09:60:00Z',
    '2026-01-31T09:00:60Z',
    '2026-01-31T09:00:00+24:00',
    '2026-01-31 09:00:00Z',
    '0000-01-01T00:00:00Z',
    '1767225600000',
  ])('rejects %s', (text) => {
    expect(parseIsoTimestamp(text, 'floor')).toBeNull();
  });
});

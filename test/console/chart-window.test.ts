import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartWindow } from '../../console/chart-window.js';
import { ROLLUP_SERIES_MAX_POINTS, seriesWindow } from '../../src/anomalies/rollup-series.js';

// What the endpoint makes of a requested window: whole steps.
function widened(request: { startTime: string; endTime: string; step: 'minute' | 'hour' | 'day' }) {
  return seriesWindow(request.startTime, request.endTime, request.step);
}

const DAY = 86_400_000;
const instants = fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') });

describe('the rollups an anomaly detail charts', () => {
  it('asks for a baseline that, widened to whole steps, ends where the widened window begins or before', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 2000 * DAY }), fc.integer({ min: 1, max: 30 }), (windowStart, age, baselineDays) => {
        const { window, baseline } = chartWindow({ metrics: { windowStart: new Date(windowStart).toISOString() } }, baselineDays, new Date(windowStart + age));
        const chart = widened(window);
        const before = widened(baseline);
        expect(Date.parse(before.to)).toBeLessThanOrEqual(Date.parse(chart.from));
        // Never more than an hour (a day for a window charted per day) between the two.
        expect(Date.parse(chart.from) - Date.parse(before.to)).toBeLessThan(window.step === 'day' ? DAY : DAY / 24);
        expect(Date.parse(before.to) - Date.parse(before.from)).toBe(baselineDays * DAY);
        expect(chart.points).toBeLessThanOrEqual(ROLLUP_SERIES_MAX_POINTS);
        expect(before.points).toBeLessThanOrEqual(ROLLUP_SERIES_MAX_POINTS);
      }),
      { numRuns: 2000 },
    );
  });

  it('charts a window that began at 10:30 per minute and takes the 7 days up to 10:00 as its baseline', () => {
    const { window, baseline } = chartWindow({ metrics: { windowStart: '2026-11-20T10:30:00.000Z' } }, 7, new Date('2026-11-20T11:30:00.000Z'));
    expect(window).toEqual({ startTime: '2026-11-20T10:30:00.000Z', endTime: '2026-11-20T11:30:00.000Z', step: 'minute' });
    expect(baseline).toEqual({ startTime: '2026-11-13T10:00:00.000Z', endTime: '2026-11-20T09:59:59.999Z', step: 'hour' });
  });

  it('starts an hour before the detection when the anomaly has no window', () => {
    const { window } = chartWindow({ detectedAt: '2026-11-20T10:30:20.000Z' }, 7, new Date('2026-11-20T10:45:00.000Z'));
    expect(window.startTime).toBe('2026-11-20T09:30:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import { backoffDelay, decideRetry, DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfter } from '../src/retry-policy.js';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000, retries: 5 };

describe('retry policy', () => {
  it('retries only 429 and 5xx gateway-type failures', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 422, 501].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Fri, 02 Jan 2026 03:04:15 GMT', NOW)).toBe(10_000);
    expect(parseRetryAfter('Fri, 02 Jan 2026 03:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter('-5', NOW)).toBeNull();
  });

  it('backs off exponentially with half the step as jitter, up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffDelay(i, policy, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffDelay(i, policy, () => 0.999_999))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('waits at least as long as Retry-After asks on a 429', () => {
    expect(decideRetry(429, '3', 0, policy, () => 0, NOW)).toEqual({ retry: true, delayMs: 3_000 });
    const jittered = decideRetry(429, '3', 0, policy, () => 0.5, NOW);
    expect(jittered).toEqual({ retry: true, delayMs: 3_050 });
  });

  it('falls back to backoff for a 429 without a usable Retry-After', () => {
    expect(decideRetry(429, null, 2, policy, () => 0, NOW)).toEqual({ retry: true, delayMs: 200 });
  });

  it('gives up on a Retry-After beyond the limit instead of hanging', () => {
    expect(decideRetry(429, '3600', 0, policy, () => 0, NOW)).toEqual({ retry: false });
  });

  it('stops after the configured number of retries', () => {
    expect(decideRetry(500, null, 4, policy, () => 0, NOW)).toMatchObject({ retry: true });
    expect(decideRetry(500, null, 5, policy, () => 0, NOW)).toEqual({ retry: false });
  });

  it('never retries client errors', () => {
    for (const status of [400, 401, 403, 404, 409]) {
      expect(decideRetry(status, '1', 0, policy, () => 0, NOW)).toEqual({ retry: false });
    }
  });
});

/**
 * When the client tries again (interface rules: retry 429 honouring Retry-After and 5xx with
 * exponential backoff; never retry other 4xx, which need the request fixed, not repeated).
 */

export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
  retries: number;
  /** First backoff step; step n (0-based) is capped at baseDelayMs × 2^n. */
  baseDelayMs: number;
  /** No backoff step exceeds this. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the 429 is returned to the caller instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

/** 500 is the spec's case; 502–504 are what proxies and load balancers answer for the same trouble. */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

// `Sun, 06 Nov 1994 08:49:37 GMT`: the date form servers must send (RFC 9110 §5.6.7).
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Null when absent
 * or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!IMF_FIXDATE.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}

/**
 * "Equal jitter": half the step is fixed, half random, so delays still grow with every attempt while
 * clients that failed together do not retry together.
 */
export function backoffDelay(retryIndex: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(step / 2 + random() * (step / 2));
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** What to do after attempt number `retryIndex + 1` answered `status`. */
export function decideRetry(
  status: number,
  retryAfter: string | null,
  retryIndex: number,
  policy: RetryPolicy,
  random: () => number,
  nowMs: number,
): RetryDecision {
  if (!isRetryableStatus(status) || retryIndex >= policy.retries) return { retry: false };
  if (status === 429) {
    const waitMs = parseRetryAfter(retryAfter, nowMs);
    if (waitMs === null) return { retry: true, delayMs: backoffDelay(retryIndex, policy, random) };
    if (waitMs > policy.maxRetryAfterMs) return { retry: false };
    // Never earlier than the server asked; the small random extra spreads a crowd that was told the same.
    return { retry: true, delayMs: waitMs + Math.round(random() * policy.baseDelayMs) };
  }
  return { retry: true, delayMs: backoffDelay(retryIndex, policy, random) };
}

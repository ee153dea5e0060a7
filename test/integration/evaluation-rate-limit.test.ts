// The tenant rate limit charges one point per evaluation: a batch of N items spends N points, and a
// batch larger than what is left is a 429 that evaluates nothing and spends nothing. Real HTTP,
// Redis, worker threads and SQLite; needs `npx tsc -p tsconfig.json` first (threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/request-signature.js';
import { sqliteTarget } from '../support/index.js';
import { startEvaluationHarness, type EvaluationHarness } from './evaluation-support/evaluation-harness.js';

const QUOTA = 20;
const SOURCE = 'Module acme.quota.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n';
const item = (amount: number) => ({ source: SOURCE, functionName: 'price', context: { amount } });

const target = sqliteTarget();
let h: EvaluationHarness;

beforeAll(async () => {
  h = await startEvaluationHarness({ openStore: () => target.connect(), rateLimitPoints: QUOTA, maxBatchItems: 100 });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await target.dispose();
});

async function post(path: string, json: unknown) {
  const body = JSON.stringify(json);
  const headers = {
    ...signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: h.tenantId, role: 'MEMBER', secret: h.secret }),
    'content-type': 'application/json',
  };
  const response = await fetch(`${h.baseUrl}${path}`, { method: 'POST', headers, body });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

const remaining = (headers: Headers) => Number(/r=(\d+)/.exec(headers.get('ratelimit') ?? '')![1]);

describe('rate limit per evaluation (real Redis)', () => {
  it('charges a batch one point per item, single evaluations one each, and refuses a batch larger than what is left', async () => {
    const single = await post('/api/v1/policies/evaluate-source', item(1));
    expect(single.status).toBe(200);
    expect(single.headers.get('ratelimit-policy')).toBe(`"tenant";q=${QUOTA};w=60`);
    expect(remaining(single.headers)).toBe(QUOTA - 1);

    const batch = await post('/api/v1/policies/evaluate-source/batch', { items: [1, 2, 3, 4, 5, 6, 7].map(item) });
    expect(batch.status).toBe(200);
    expect(batch.body.results).toHaveLength(7);
    expect(remaining(batch.headers)).toBe(QUOTA - 1 - 7);

    // 12 points left: a batch of 13 does not fit; it is refused whole, evaluates nothing, spends nothing.
    const evaluatedBefore = (await h.sourceEvaluations()).length;
    const dispatchesBefore = h.dispatchCalls.length;
    const tooBig = await post('/api/v1/policies/evaluate-source/batch', { items: Array.from({ length: 13 }, (_, i) => item(i)) });
    expect(tooBig.status).toBe(429);
    expect(tooBig.body).toMatchObject({ result: null, code: 'ERR_RATE_LIMIT_EXCEEDED' });
    expect(tooBig.body.error).toContain('needs 13 points (one per evaluation) and 12 remain');
    const retryAfter = Number(tooBig.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(tooBig.headers.get('ratelimit')).toBe(`"tenant";r=12;t=${retryAfter}`);
    expect(h.dispatchCalls.length).toBe(dispatchesBefore);
    expect((await h.sourceEvaluations()).length).toBe(evaluatedBefore);

    // The 12 points are still there: a batch of exactly 12 fits, then the quota is spent.
    const exact = await post('/api/v1/policies/evaluate-source/batch', { items: Array.from({ length: 12 }, (_, i) => item(i)) });
    expect(exact.status).toBe(200);
    expect(remaining(exact.headers)).toBe(0);
    expect((await post('/api/v1/policies/evaluate-source', item(1))).status).toBe(429);
  });

  it('charges a malformed or oversized batch envelope one point, and it is still a 400 (bearer token, own tenant)', async () => {
    const token = await h.token(['MEMBER'], { tenant: 'quota-other' });
    const send = async (json: unknown) => {
      const response = await fetch(`${h.baseUrl}/api/v1/policies/evaluate-source/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'quota-other', 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      return { status: response.status, remaining: remaining(response.headers) };
    };
    expect(await send({ items: 'not a list' })).toEqual({ status: 400, remaining: QUOTA - 1 });
    expect(await send({ items: Array.from({ length: 101 }, (_, i) => item(i)) })).toEqual({ status: 400, remaining: QUOTA - 2 });
    expect(await send({ items: [item(1), item(2)] })).toEqual({ status: 200, remaining: QUOTA - 4 });
  });
});

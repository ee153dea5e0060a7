// Without a worker on the `policy-evaluate` queue the endpoints answer 503 within the dispatcher's
// response timeout (never hang), audit nothing, and recover once a worker starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyHttpError } from '../../clients/typescript/src/index.js';
import { createEnginePool, type EnginePool } from '../../src/engine/index.js';
import { startEvaluationWorker, type EvaluationWorker } from '../../src/evaluation/index.js';
import { sqliteTarget } from '../support/index.js';
import { REDIS_URL, startEvaluationHarness, type EvaluationHarness } from './evaluation-support/evaluation-harness.js';
import { PRICING_SOURCE, priceContext } from './evaluation-support/policies.js';

const RESPONSE_TIMEOUT_MS = 300;
const item = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 1, 5), locale: 'en-US' };

describe('evaluation endpoints without a worker', () => {
  const target = sqliteTarget();
  let h: EvaluationHarness;
  let pool: EnginePool | undefined;
  let worker: EvaluationWorker | undefined;

  beforeAll(async () => {
    h = await startEvaluationHarness({ openStore: () => target.connect(), worker: false, responseTimeoutMs: RESPONSE_TIMEOUT_MS });
  });

  afterAll(async () => {
    await h?.close();
    await worker?.close();
    await pool?.close();
    await target.dispose();
  });

  async function refused(promise: Promise<unknown>): Promise<PolicyHttpError> {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    if (!(error instanceof PolicyHttpError)) throw new Error(`expected an HTTP error, got ${String(error)}`);
    return error;
  }

  it('answers 503 ERR_EVALUATION_UNAVAILABLE in the envelope when no worker answers', async () => {
    const error = await refused(h.client().evaluateSource(item));
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(1);
    expect(error.body).toEqual({
      result: null,
      error: `policy evaluation is unavailable: no evaluation worker answered within ${RESPONSE_TIMEOUT_MS} ms; retry later`,
      executionTimeMs: 0,
      code: 'ERR_EVALUATION_UNAVAILABLE',
    });
  });

  it('answers 503 for a whole batch, and audits nothing', async () => {
    const error = await refused(h.client().evaluateBatch([item, item, item]));
    expect([error.status, error.code]).toEqual([503, 'ERR_EVALUATION_UNAVAILABLE']);
    expect(await h.sourceEvaluations()).toEqual([]);
  });

  it('serves requests again once a worker takes the queue', async () => {
    pool = createEnginePool({ threads: 1 });
    worker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix: h.prefix, concurrency: 2 });
    // The new worker's first answer may take longer than the 300 ms the API waits (a thread starting on a
    // loaded machine): until it comes, the API answers 503 as before, and audits nothing for it.
    let refusals = 0;
    for (;;) {
      const outcome = await h.client().evaluateSource(item).catch((error: unknown) => error);
      if (!(outcome instanceof PolicyHttpError)) {
        expect(outcome).toMatchObject({ status: 200, ok: true, result: 15 });
        break;
      }
      expect([outcome.status, outcome.code]).toEqual([503, 'ERR_EVALUATION_UNAVAILABLE']);
      refusals += 1;
      expect(refusals, 'the worker never answered').toBeLessThan(100);
    }
    expect(await h.sourceEvaluations()).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { EvaluationQueueError, NoWorkerAvailableError } from '../../evaluation/index.js';
import { unlessUnavailable } from '../routes/evaluation-route-kit.js';

describe('unlessUnavailable', () => {
  it('answers 503 with the public reason only: no cause, no stack text', async () => {
    const queueDown = new EvaluationQueueError(new RangeError('Maximum call stack size exceeded'));
    await expect(unlessUnavailable(() => Promise.reject(queueDown))).rejects.toMatchObject({
      status: 503,
      code: 'ERR_EVALUATION_UNAVAILABLE',
      message: 'policy evaluation is unavailable: the evaluation queue is unavailable; retry later',
    });
    await expect(unlessUnavailable(() => Promise.reject(new NoWorkerAvailableError(5000)))).rejects.toMatchObject({
      status: 503,
      message: 'policy evaluation is unavailable: no evaluation worker answered within 5000 ms; retry later',
    });
  });

  it('passes other failures and answers through', async () => {
    await expect(unlessUnavailable(async () => 7)).resolves.toBe(7);
    await expect(unlessUnavailable(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

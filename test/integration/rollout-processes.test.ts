// A rollout's start, abort and promotion are seen by every API process at once: the built service
// as separate processes (two `api`, one `worker`) on one SQLite store, each API keeping a module's
// active version for a minute (ACTIVE_VERSION_CACHE_MS, its most), so only the activation notices over
// Redis can explain an answer that changes as soon as the other process changed the rollout.
import { describe, expect, it } from 'vitest';
import { separateProcesses, type ApiCall } from '../support/index.js';

const source = (rate: number) => `Module acme.everywhere.

Rule price given amount as Int, produce Int:
  Return amount times ${rate}.
`;

interface Answer {
  version: number;
}

/** The versions that answer `times` evaluations through one API process. */
async function versionsAnswering(call: ApiCall, times = 10): Promise<Set<number>> {
  const versions = new Set<number>();
  for (let i = 0; i < times; i += 1) {
    const answer = await call<Answer>('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.everywhere', policyFunction: 'price', context: { amount: i } });
    expect(answer.status).toBe(200);
    versions.add(answer.body.version);
  }
  return versions;
}

describe('rollouts across API processes', () => {
  const deployment = separateProcesses('rollout-processes', () => ({ env: {}, dispose: async () => {} }), { ACTIVE_VERSION_CACHE_MS: '60000' });

  it('start, abort and promote on one process change the answers of the other at once', async () => {
    const [first, second] = [await deployment.start('api'), await deployment.start('api')];
    await deployment.start('worker');
    const one = await deployment.callsAs(first, 'operator-one', 'ADMIN');
    const other = await deployment.callsAs(second, 'operator-two', 'ADMIN');
    expect((await one('POST', '/api/v1/policies', { source: source(2) })).status).toBe(201);
    // The other process reads (and keeps) version 1 as active before anything changes.
    expect(await versionsAnswering(other)).toEqual(new Set([1]));

    expect((await one('POST', '/api/v1/policies', { source: source(3), rollout: { mode: 'canary', percent: 100 } })).status).toBe(201);
    expect(await versionsAnswering(other)).toEqual(new Set([2]));

    expect((await one('POST', '/api/v1/policies/acme.everywhere/rollout/abort', { reason: 'not yet' })).status).toBe(200);
    expect(await versionsAnswering(other)).toEqual(new Set([1]));

    // A shadow answers nobody; its promotion makes it answer everyone.
    expect((await other('POST', '/api/v1/policies', { source: source(4), rollout: { mode: 'shadow' } })).status).toBe(201);
    expect(await versionsAnswering(one)).toEqual(new Set([1]));
    const promoted = await other<{ status: string }>('POST', '/api/v1/policies/acme.everywhere/rollout/promote', {});
    expect(promoted.body.status).toBe('PROMOTED');
    // Promoted: version 3 answers everything, on both processes.
    expect(await versionsAnswering(one)).toEqual(new Set([3]));
    expect(await versionsAnswering(other)).toEqual(new Set([3]));
    const rollout = await one<{ status: string; version: number; endedBy: string }>('GET', '/api/v1/policies/acme.everywhere/rollout');
    expect(rollout.body).toMatchObject({ status: 'PROMOTED', version: 3, endedBy: 'operator-two' });
  }, 60_000);
});

// Two API processes share one Redis and one store: the same signed request (one nonce) sent to both
// at once has exactly one effect — one 200, one 403 ERR_AUTH_NONCE_REUSED, one audit record.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTenantCli } from '../../scripts/tenant.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { openSqliteStore } from '../../src/store/index.js';
import { assertServiceBuilt, REDIS_URL, removeRedisPrefix, runService, untilLinked, type ServiceProcess } from '../support/index.js';

const ROUNDS = 40;
const PATH = '/api/v1/policies/evaluate-source';

describe('a nonce sent to two API processes at once', () => {
  let dir: string;
  let env: Record<string, string>;
  const processes: ServiceProcess[] = [];
  const bases: string[] = [];
  let secret: string;

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-fault-nonce-'));
    env = { DATA_DIR: dir, REDIS_URL, REDIS_KEY_PREFIX: `fault-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0', RATE_LIMIT_POINTS: '1000000' };
    const created: string[] = [];
    await runTenantCli(['create', 'acme'], { env, out: (l) => created.push(l), err: () => {} });
    secret = created.at(-1)!;
    const worker = runService(['--role', 'worker'], env);
    processes.push(worker);
    await worker.waitForLog('service started');
    for (let i = 0; i < 2; i++) {
      const api = runService(['--role', 'api'], env);
      processes.push(api);
      bases.push(`http://127.0.0.1:${(await api.waitForLog('api listening')).port as number}`);
    }
  }, 60_000);

  afterAll(async () => {
    for (const running of processes) {
      if (running.child.exitCode === null) running.child.kill('SIGTERM');
      await running.exited;
    }
    await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    await rm(dir, { recursive: true, force: true });
  });

  it('is accepted by exactly one of them, and audited once', async () => {
    const outcomes: Array<[number, number]> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const body = JSON.stringify({ source: 'Module m.\nRule f given x as Int, produce Int:\n  Return x plus 1.\n', functionName: 'f', context: { x: round } });
      const headers = { ...signRequest({ method: 'POST', pathWithQuery: PATH, body, tenantId: 'acme', role: 'MEMBER', secret }), 'content-type': 'application/json' };
      const answers = await Promise.all(bases.map((base) => fetch(`${base}${PATH}`, { method: 'POST', headers, body })));
      const codes = await Promise.all(answers.map(async (answer) => ((await answer.json()) as { code?: string }).code));
      outcomes.push([answers[0]!.status, answers[1]!.status]);
      expect(answers.map((a) => a.status).sort(), `round ${round}`).toEqual([200, 403]);
      expect(codes[answers.findIndex((a) => a.status === 403)]).toBe('ERR_AUTH_NONCE_REUSED');
    }
    // Both processes won rounds (30 of 40 went to the first in one run): the race was real.
    expect(outcomes.some(([first]) => first === 200)).toBe(true);
    expect(outcomes.some(([, second]) => second === 200)).toBe(true);

    // Stop the APIs gracefully so their audit recorders have stored everything; records one stored
    // while the other held the tenant's lease are linked by whoever holds it next (the worker's
    // sweep, once both are gone). Then count the records.
    for (const running of processes.slice(1)) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    const store = await openSqliteStore(join(dir, 'policy-engine.sqlite'));
    try {
      expect(await untilLinked(async () => (await store.auditLinks.unlinkedSummary('acme')).count)).toBe(0);
      const records = await store.audit.list('acme', { limit: 10_000 });
      expect(records.filter((r) => r.eventType === 'SOURCE_EVALUATED')).toHaveLength(ROUNDS);
    } finally {
      await store.close();
    }
  }, 120_000);
});

// Fault: the deployment (two API and two worker processes on FerretDB) runs on a Redis Cluster of
// three masters and three replicas, under the steady mixed load, and one master is killed with
// SIGKILL. Until its replica is promoted, requests whose keys live on it are answered 503 with
// Retry-After (the load retries them), never a 500 and never a hang; afterwards the service answers
// 200 again without a restart, and every answered evaluation is in the audit chain exactly once.
import { afterAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/request-signature.js';
import { startRedisCluster, type OwnRedisCluster } from '../support/index.js';
import { FAULT_TENANT, type FaultCluster, type RedisChoice } from './support/fault-cluster.js';
import { findingsTable, runFaultScenario, type ScenarioResult } from './support/fault-scenario.js';
import { expectKeptPromises } from './support/kept-promises.js';

const REDIS_CLUSTER: RedisChoice<OwnRedisCluster> = {
  start: () => startRedisCluster(),
  env: (redis) => ({ REDIS_CLUSTER_NODES: redis.nodes }),
  stop: (redis) => redis.stop(),
};

/**
 * One signed evaluation straight after the take-over: no restart, no retry by a client library. Its
 * module is outside the load's `fault.` names, so the findings do not count it as the load's.
 */
async function evaluateOnce(cluster: FaultCluster<OwnRedisCluster>): Promise<{ status: number; retryAfter: string | null }> {
  const path = '/api/v1/policies/evaluate-source';
  const body = JSON.stringify({ source: 'Module takeover.probe.\nRule f given x as Int, produce Int:\n  Return x times 2.\n', functionName: 'f', context: { x: 21 } });
  const response = await fetch(`${cluster.apiBases()[0]}${path}`, {
    method: 'POST',
    headers: { ...signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: FAULT_TENANT, role: 'MEMBER', secret: cluster.secret }), 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  await response.arrayBuffer();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

describe('faults under load on a Redis Cluster', () => {
  const results: ScenarioResult[] = [];
  afterAll(() => {
    if (results.length > 0) console.log(`\nfault scenarios (2 API + 2 worker processes, FerretDB, Redis Cluster of 3 masters + 3 replicas)\n${findingsTable(results)}\n`);
  });

  it('a master killed with SIGKILL: its replica takes over, and the service answers again without a restart', async () => {
    const afterTakeOver: Array<{ status: number; retryAfter: string | null }> = [];
    const result = await runFaultScenario(
      'Redis Cluster master kill -9',
      async (cluster) => {
        const [master] = await cluster.redis.masters();
        await cluster.redis.kill(master!);
        await cluster.redis.untilFailedOver(master!);
        // The clients learn the new slot map from the nodes' redirections and their own refresh.
        for (let attempt = 0; attempt < 40; attempt += 1) {
          const answer = await evaluateOnce(cluster);
          afterTakeOver.push(answer);
          if (answer.status === 200) break;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
      REDIS_CLUSTER,
    );
    results.push(result);
    expectKeptPromises(result, { everyAuditedAnswered: true });
    // Besides answers, only 503s (what the load retries, after Retry-After) and the 409s of workflow signals and idempotency keys.
    const unexpected = result.ledger.attempts.filter((a) => typeof a.outcome !== 'number' || (a.outcome >= 400 && a.outcome !== 503 && a.outcome !== 409));
    expect(unexpected.map((a) => `${a.kind} ${a.outcome} ${a.code}`)).toEqual([]);
    expect(afterTakeOver.at(-1)?.status, JSON.stringify(afterTakeOver)).toBe(200);
    for (const answer of afterTakeOver.slice(0, -1)) {
      expect(answer.status, JSON.stringify(afterTakeOver)).toBe(503);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
  }, 300_000);
});

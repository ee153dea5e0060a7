// What a shadow rollout at 100 % costs the deployed route: the service as docker-compose deploys it
// (an `api` and a `worker` process), CPU of both and of Redis per request as the kernel counts it,
// in three phases of the same load, alternated `ROUNDS` times:
//   plain   the deployed route, no rollout
//   shadow  the same, with version 2 (the same rules) in the shadow at 100 %: every answer copied
//   second  no rollout; each request a batch of two deployed items: the CPU of one more evaluation
//           of the policy through the engine path (and its audit record, which a copy does not write)
// The shadow's extra CPU per request (shadow − plain) is set against one more evaluation's
// (second − plain). Run after `npm run build`:  node bench/http/shadow-cost.mjs [seconds] [rounds]
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { cpuSeconds } from '../soak/process-usage.mjs';
import { DEPLOY_ROLE, withSplitBenchService } from '../support/bench-service.mjs';
import { deployedRouteRequests } from '../support/deployed-route.mjs';
import { loadAutocannon, runAutocannon } from '../support/load.mjs';
import { redisServerPid } from '../support/redis-server-pid.mjs';
import { signedPost } from '../support/signed-requests.mjs';

const seconds = Number(process.argv[2] ?? 8);
const rounds = Number(process.argv[3] ?? 3);
const CONNECTIONS = 32;

/** The same rules as version 1, printed apart by a comment: copies agree, so comparing costs what it costs in practice. */
const SHADOW_SOURCE = `${POLICY_SOURCE}\n# the shadow version\n`;

async function measure(autocannon, service, pids, requests) {
  await runAutocannon(autocannon, { url: service.base, connections: CONNECTIONS, duration: 2, requests });
  const before = pids.map((pid) => cpuSeconds(pid));
  const result = await runAutocannon(autocannon, { url: service.base, connections: CONNECTIONS, duration: seconds, requests });
  const after = pids.map((pid) => cpuSeconds(pid));
  if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpu = pids.map((_, i) => ((after[i] - before[i]) * 1e6) / result.requests.sent);
  return { rate: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99, cpu: cpu.reduce((a, b) => a + b, 0), parts: cpu };
}

async function setShadow(service, on) {
  const path = on ? '/api/v1/policies' : '/api/v1/policies/bench.loan/rollout/abort';
  const body = on ? JSON.stringify({ source: SHADOW_SOURCE, locale: 'en-US', rollout: { mode: 'shadow' } }) : '{}';
  const answer = await signedPost(service.base, path, body, service.secret, DEPLOY_ROLE);
  if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

async function main() {
  const autocannon = loadAutocannon();
  await withSplitBenchService('shadow-cost', {}, async ({ service, api, worker }) => {
    const pids = [api.child.pid, worker.child.pid, redisServerPid()];
    const plain = await deployedRouteRequests(service);
    const second = plain.map((request, i) => ({
      ...request,
      path: '/api/v1/policies/evaluate-source/batch',
      body: JSON.stringify({
        items: [0, 1].map((k) => ({ policyModule: 'bench.loan', policyFunction: FUNCTION_NAME, context: SAMPLES[(i + k) % SAMPLES.length] })),
      }),
    }));
    const rows = { plain: [], shadow: [], second: [] };
    for (let round = 0; round < rounds; round += 1) {
      rows.plain.push(await measure(autocannon, service, pids, plain));
      await setShadow(service, true);
      rows.shadow.push(await measure(autocannon, service, pids, plain));
      await setShadow(service, false);
      rows.second.push(await measure(autocannon, service, pids, second));
    }
    const mean = (list, pick) => list.reduce((sum, row) => sum + pick(row), 0) / list.length;
    console.log('| phase | requests/s | p50 / p99 ms | CPU µs/request (api + worker + Redis) |');
    console.log('|---|---:|---:|---:|');
    for (const [name, list] of Object.entries(rows)) {
      const parts = [0, 1, 2].map((i) => Math.round(mean(list, (row) => row.parts[i])));
      console.log(`| ${name} | ${Math.round(mean(list, (r) => r.rate))} | ${mean(list, (r) => r.p50).toFixed(1)} / ${mean(list, (r) => r.p99).toFixed(1)} | ${Math.round(mean(list, (r) => r.cpu))} (${parts.join(' + ')}) |`);
    }
    const base = mean(rows.plain, (r) => r.cpu);
    const shadowExtra = mean(rows.shadow, (r) => r.cpu) - base;
    const evaluationExtra = mean(rows.second, (r) => r.cpu) - base;
    console.log(`\nshadow's extra CPU per request ${Math.round(shadowExtra)} µs; one more evaluation ${Math.round(evaluationExtra)} µs; ratio ${(shadowExtra / evaluationExtra).toFixed(2)}`);
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

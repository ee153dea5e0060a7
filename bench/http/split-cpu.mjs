// The deployed route (a policy by name, one bearer token) on the service as docker-compose deploys
// it, an `api` and a `worker` process, with the CPU each process and Redis spend per request as the
// kernel counts it (user + system time of every thread): the quick check of a change to the path,
// without a profiler's own cost. Run after `npm run build`; prints one line.
//   node bench/http/split-cpu.mjs [seconds]      BATCH=1: the batch endpoint, 100 evaluate-source items a request, signed
//   NODE_FLAGS='--perf-basic-prof': node flags of both processes (e.g. for `perf record -p <api pid>`)
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { cpuSeconds } from '../soak/process-usage.mjs';
import { withSplitBenchService } from '../support/bench-service.mjs';
import { deployedRouteRequests } from '../support/deployed-route.mjs';
import { loadAutocannon, runAutocannon } from '../support/load.mjs';
import { redisServerPid } from '../support/redis-server-pid.mjs';
import { signedPool } from '../support/signed-requests.mjs';

const seconds = Number(process.argv[2] ?? 10);
const batch = process.env.BATCH === '1';
const CONNECTIONS = batch ? 16 : 64;
const BATCH_ITEMS = 100;

async function main() {
  const autocannon = loadAutocannon();
  const nodeArgs = () => (process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []);
  await withSplitBenchService('split-cpu', { nodeArgs }, async ({ service, api, worker }) => {
    const redisPid = redisServerPid();
    const requests = batch
      ? signedPool(
          [JSON.stringify({ items: Array.from({ length: BATCH_ITEMS }, (_, i) => ({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context: SAMPLES[i % SAMPLES.length], locale: 'en-US' })) })],
          '/api/v1/policies/evaluate-source/batch',
          service.secret,
          1000 * (seconds + 3),
        ).requests
      : await deployedRouteRequests(service);
    const perRequest = batch ? BATCH_ITEMS : 1;
    await runAutocannon(autocannon, { url: service.base, connections: CONNECTIONS, duration: 3, requests });
    const pids = [api.child.pid, worker.child.pid, redisPid];
    const before = pids.map((pid) => (pid ? cpuSeconds(pid) : null));
    const result = await runAutocannon(autocannon, { url: service.base, connections: CONNECTIONS, duration: seconds, requests });
    const after = pids.map((pid) => (pid ? cpuSeconds(pid) : null));
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    const perEvaluation = (i) => (before[i] === null || after[i] === null ? '-' : Math.round(((after[i] - before[i]) * 1e6) / (result.requests.sent * perRequest)));
    console.log(
      `${Math.round((result['2xx'] * perRequest) / result.duration)} evaluations/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; CPU µs/evaluation: api ${perEvaluation(0)}, worker ${perEvaluation(1)}, Redis ${perEvaluation(2)}`,
    );
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

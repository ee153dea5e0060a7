// Where a request of the deployed route waits, on the service as docker-compose deploys it (an `api`
// and a `worker` process): the mean of each timing the service itself records (its Prometheus
// histograms) over one run, how busy the API's main event loop was, and each process's CPU per
// request by thread. When the machine has idle time and the loop is not full, the rate is bound by
// these waits, not by CPU. Run after `npm run build`:
//   node bench/http/waits.mjs [seconds] [connections]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSplitBenchService } from '../support/bench-service.mjs';
import { deployedRouteRequests } from '../support/deployed-route.mjs';
import { projectRoot, unusedPort } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon } from '../support/load.mjs';

const seconds = Number(process.argv[2] ?? 8);
const connections = Number(process.argv[3] ?? 64);
const TIMINGS = /^policy_engine_(http_request_duration|audit_append_lag|queue_job_wait|queue_job_processing)_seconds_(sum|count)\{(.*)\} (\S+)$/;

/** Sum and count of each recorded timing, by its name and labels. */
async function timings(url) {
  const found = new Map();
  for (const line of (await (await fetch(url)).text()).split('\n')) {
    const match = TIMINGS.exec(line);
    if (match === null || (match[1] === 'http_request_duration' && !match[3].includes('/api/v1/policies/evaluate'))) continue;
    const key = `${match[1]} ${match[3].replace(/role="[^"]*",?/, '')}`;
    const entry = found.get(key) ?? { sum: 0, count: 0 };
    entry[match[2]] = Number(match[4]);
    found.set(key, entry);
  }
  return found;
}

/** CPU seconds of each thread of `pid` so far, by thread id and name. */
function threadSeconds(pid) {
  return new Map(
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [`${tid === String(pid) ? 'main' : `thread ${tid}`}`, (Number(fields[11]) + Number(fields[12])) / 100];
    }),
  );
}

async function main() {
  const autocannon = loadAutocannon();
  const workerMetrics = await unusedPort();
  const configure = (service) => {
    service.env.METRICS_PORT = String(workerMetrics);
    service.env.NODE_OPTIONS = `--import ${join(projectRoot, 'bench', 'support', 'loop-probe.mjs')}`;
  };
  await withSplitBenchService('waits', { configure }, async ({ service, api, worker }) => {
    const requests = await deployedRouteRequests(service);
    await runAutocannon(autocannon, { url: service.base, connections, duration: 3, requests });
    const sources = [`${service.base}/metrics`, `http://127.0.0.1:${workerMetrics}/metrics`];
    const before = await Promise.all(sources.map(timings));
    const cpuBefore = [api, worker].map((p) => threadSeconds(p.child.pid));
    const probed = api.output().length;
    const result = await runAutocannon(autocannon, { url: service.base, connections, duration: seconds, requests });
    const cpuAfter = [api, worker].map((p) => threadSeconds(p.child.pid));
    const after = await Promise.all(sources.map(timings));
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    const loop = (api.output().slice(probed).match(/loop-utilisation [0-9.]+/g) ?? []).map((line) => Number(line.split(' ')[1]));
    console.log(`${Math.round(result['2xx'] / result.duration)} requests/s at ${connections} connections, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    console.log(`api main event loop busy: ${loop.map((u) => u.toFixed(2)).join(' ')} (mean ${(loop.reduce((a, b) => a + b, 0) / Math.max(1, loop.length)).toFixed(2)})`);
    console.log('mean of each timing the service records over the run (ms):');
    after.forEach((map, i) => {
      for (const [key, { sum, count }] of map) {
        const was = before[i].get(key) ?? { sum: 0, count: 0 };
        if (count > was.count) console.log(`  ${i === 0 ? 'api' : 'worker'} ${key}: ${(((sum - was.sum) / (count - was.count)) * 1000).toFixed(2)} over ${count - was.count}`);
      }
    });
    ['api', 'worker'].forEach((role, i) => {
      const threads = [...cpuAfter[i]].map(([name, s]) => [name, Math.round(((s - (cpuBefore[i].get(name) ?? 0)) * 1e6) / result.requests.sent)]).filter(([, us]) => us > 0);
      console.log(`${role} CPU µs/request by thread: ${threads.map(([name, us]) => `${name} ${us}`).join(', ')}`);
    });
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

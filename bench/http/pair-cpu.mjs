// Two runs of the service side by side, as docker-compose deploys it (an `api` and a `worker`
// process each), driven in turns of a second on the deployed route: the API process's CPU per
// request for each, from the same minutes of a shared machine, so a change of a few µs shows
// where runs minutes apart differ by ±20 %. The two differ by environment variables, or by build
// (MAIN: another build's main.js, e.g. a copy of dist/ made before a change, kept inside the
// project so that it finds node_modules):
//   A='{"X":"1"}' B='{"X":"2"}' node bench/http/pair-cpu.mjs [turns]
//   A='{"MAIN":"dist-before/src/main.js"}' node bench/http/pair-cpu.mjs
import { resolve } from 'node:path';
import { cpuSeconds } from '../soak/process-usage.mjs';
import { prepareBenchService, removeBenchService, startSplitBenchService } from '../support/bench-service.mjs';
import { projectRoot, stopChild } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon } from '../support/load.mjs';
import { deployedRouteRequests } from '../support/deployed-route.mjs';

const turns = Number(process.argv[2] ?? 10);
const CONNECTIONS = 64;

async function start(name, { MAIN, ...extraEnv }) {
  const service = await prepareBenchService(name);
  Object.assign(service.env, extraEnv);
  if (MAIN !== undefined) service.main = resolve(projectRoot, MAIN);
  const processes = await startSplitBenchService(service);
  const requests = await deployedRouteRequests(service);
  return { name, service, processes, requests, cpu: 0, sent: 0, answered: 0, seconds: 0 };
}

async function turn(autocannon, run, seconds) {
  const before = cpuSeconds(run.processes.api.child.pid);
  const result = await runAutocannon(autocannon, { url: run.service.base, connections: CONNECTIONS, duration: seconds, requests: run.requests });
  if (result.non2xx + result.errors > 0) throw new Error(`${run.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  run.cpu += cpuSeconds(run.processes.api.child.pid) - before;
  run.sent += result.requests.sent;
  run.answered += result['2xx'];
  run.seconds += result.duration;
}

async function main() {
  const autocannon = loadAutocannon();
  const runs = [await start('pair-a', JSON.parse(process.env.A ?? '{}')), await start('pair-b', JSON.parse(process.env.B ?? '{}'))];
  try {
    for (const run of runs) await turn(autocannon, run, 3);
    for (const run of runs) Object.assign(run, { cpu: 0, sent: 0, answered: 0, seconds: 0 });
    for (let i = 0; i < turns; i++) for (const run of i % 2 === 0 ? runs : [...runs].reverse()) await turn(autocannon, run, 1);
    const [a, b] = runs.map((run) => (run.cpu * 1e6) / run.sent);
    const [ra, rb] = runs.map((run) => run.answered / run.seconds);
    console.log(`api CPU µs/request: A ${a.toFixed(1)}, B ${b.toFixed(1)}, B/A ${(b / a).toFixed(3)}; requests/s: A ${Math.round(ra)}, B ${Math.round(rb)}, B/A ${(rb / ra).toFixed(3)}`);
  } finally {
    for (const run of runs) {
      await stopChild(run.processes.api);
      await stopChild(run.processes.worker);
      await removeBenchService(run.service);
    }
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

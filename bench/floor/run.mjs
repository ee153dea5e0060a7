// The physical floor of the service's promises: raw-server.mjs (raw parts only) built up one promise
// at a time — (1) HTTP, JSON and the bearer check, (2) + the audit record, (3) + the queue hop,
// (4) + the thread hop — then all of them in two processes, as the service's `api` and `worker`
// roles: (5) the audit record written by the api process, (6) by the worker before it replies —
// each driven like bench/http drives the service, with the CPU its processes and Redis spent per
// request. In the same run: the service itself on the same route (a deployed policy by name with a
// bearer token) in one process and as api + worker, its CPU by stage from bench/http/profile.mjs,
// and OPA's REST server on the same rule. Run through `npm run bench:floor` (QUICK=1 for a seconds-long smoke run).
import { spawnSync } from 'node:child_process';
import { deepStrictEqual } from 'node:assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJwtKeyRing, createTokenSigner } from '../../dist/src/auth/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, priceInJs, SAMPLES } from '../language/loan-pricing.mjs';
import { cpuSeconds } from '../soak/process-usage.mjs';
import { DEPLOY_ROLE, prepareBenchService, REDIS_URL, removeBenchService, startBenchService, startSplitBenchService, TENANT } from '../support/bench-service.mjs';
import { projectRoot, startChild, stopChild } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon, summariseRun } from '../support/load.mjs';
import { OPA_DECISION_PATH, OPA_VERSION, opaBinary, startOpa, stopOpa } from '../support/opa.mjs';
import { redisServerPid } from '../support/redis-server-pid.mjs';
import { signedPost } from '../support/signed-requests.mjs';
import { fmt, printTable } from '../support/table.mjs';
import { signToken } from './hs256.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.env.QUICK === '1';

const CONNECTIONS = 64;
const DURATION_S = quick ? 1 : 10;
const WARMUP_S = quick ? 1 : 3;
const EVALUATE_PATH = '/api/v1/policies/evaluate';
const DEPLOYED_MODULE = 'bench.loan';

const STAGES = [
  { stage: 1, run: '(1) node:http + JSON parse + bearer check (HS256, node:crypto)' },
  { stage: 2, run: '(2) + audit record (JSON, SHA-256, batched SQLite insert)' },
  { stage: 3, run: '(3) + queue hop (BullMQ job, pub/sub reply)' },
  { stage: 4, run: '(4) + thread hop (worker_threads) = all promises' },
  { stage: 5, run: '(5) all promises, two processes: api (HTTP, bearer, queue sender, audit record) + worker (BullMQ worker, thread)' },
  { stage: 6, run: '(6) all promises, two processes: api (HTTP, bearer, queue sender) + worker (BullMQ worker, thread, audit record before the reply)' },
];
/** Stages of two processes, as the service's `api` and `worker` roles; the others are one process, as its role `all`. */
const isSplit = (stage) => stage >= 5;
/** The stages of bench/http/profile.mjs that do what each raw stage adds. */
const SERVICE_STAGES = {
  1: ['HTTP and parsing', 'auth'],
  2: ['audit', 'store (SQLite)'],
  3: ['dispatch and queue hop', 'Redis client (replies)'],
  4: ['thread hop'],
};

const deployedBodies = SAMPLES.map((context) => JSON.stringify({ policyModule: DEPLOYED_MODULE, policyFunction: FUNCTION_NAME, context }));
const bearerRequests = (token) =>
  deployedBodies.map((body) => ({ method: 'POST', path: EVALUATE_PATH, headers: { 'content-type': 'application/json', 'x-tenant-id': TENANT, authorization: `Bearer ${token}` }, body }));

/** Every sample's answer must be the plain JS function's before anything is timed. */
async function checkAnswers(base, token) {
  for (const request of bearerRequests(token)) {
    const response = await fetch(`${base}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
    const expected = priceInJs(JSON.parse(request.body).context);
    deepStrictEqual((await response.json()).result, expected, `${base} answers differently from the plain JS function`);
  }
  return SAMPLES.length;
}

/** CPU seconds of the server's processes together so far; null when one cannot be read. */
function serverCpuSeconds(pids) {
  const each = pids.map(cpuSeconds);
  return each.includes(null) ? null : each.reduce((a, b) => a + b, 0);
}

/** A warm-up, then one measured run with the CPU the server's processes and Redis spent on it, per request sent. */
async function measure(autocannon, name, run, serverPids, redisPid) {
  const warmUp = await runAutocannon(autocannon, { ...run, duration: WARMUP_S });
  const before = [serverCpuSeconds(serverPids), redisPid && cpuSeconds(redisPid)];
  const result = await runAutocannon(autocannon, { ...run, duration: DURATION_S });
  const after = [serverCpuSeconds(serverPids), redisPid && cpuSeconds(redisPid)];
  const row = summariseRun(name, result);
  const perRequest = (i) => (before[i] === null || after[i] === null ? null : ((after[i] - before[i]) * 1e6) / row.sent);
  return { ...row, serverCpuUs: perRequest(0), redisCpuUs: redisPid ? perRequest(1) : null, warmUp: { answered: warmUp['2xx'], sent: warmUp.requests.sent } };
}

/** One stage of the raw server: started, checked, measured, stopped; its counts (jobs, items, audit records) checked against the requests. */
async function measureStage(autocannon, { stage, run }, redisPid) {
  const secret = randomBytes(32);
  const env = { FLOOR_STAGE: String(stage), FLOOR_JWT_SECRET: secret.toString('base64url'), REDIS_URL, FLOOR_PREFIX: `bench-floor-${randomUUID()}` };
  /** A raw-server process, once it said it listens: its first line (a port, or `ready`). */
  const start = async (processEnv) => {
    const started = startChild([join(here, 'raw-server.mjs')], processEnv);
    const first = await new Promise((resolve, reject) => {
      started.child.stdout.once('data', (chunk) => resolve(String(chunk).split('\n')[0]));
      started.exited.then((code) => reject(new Error(`raw-server.mjs exited (${code}): ${started.output()}`)));
    });
    return { started, first };
  };
  // The worker first, as the service starts its roles: the API never takes work nobody can do. Stopped in reverse.
  const servers = [];
  let row;
  try {
    if (isSplit(stage)) servers.push((await start({ ...env, FLOOR_PROCESS: 'worker' })).started);
    const { started, first } = await start(isSplit(stage) ? { ...env, FLOOR_PROCESS: 'api' } : env);
    servers.push(started);
    const base = `http://127.0.0.1:${Number(first)}`;
    const token = signToken(env.FLOOR_JWT_SECRET, { sub: 'bench-client', tenantId: TENANT, roles: ['MEMBER'], exp: Math.floor(Date.now() / 1000) + 3600 });
    const checked = await checkAnswers(base, token);
    row = await measure(autocannon, run, { url: base, connections: CONNECTIONS, requests: bearerRequests(token) }, servers.map((server) => server.child.pid), redisPid);
    row.answered = checked + row.warmUp.answered + row.requests;
    row.sentAll = checked + row.warmUp.sent + row.sent;
  } finally {
    for (const server of [...servers].reverse()) await stopChild(server);
  }
  const counts = servers
    .map((server) => JSON.parse(server.output().trim().split('\n').at(-1)))
    .reduce((sum, one) => ({ jobs: sum.jobs + one.jobs, items: sum.items + one.items, records: sum.records + one.records }));
  // Requests cut off at the end of a run are still answered (and audited) by the server.
  if (stage >= 2 && (counts.records < row.answered || counts.records > row.sentAll)) {
    throw new Error(`${run}: ${counts.records} audit records for ${row.answered} answered and ${row.sentAll} sent requests`);
  }
  return { ...row, stage, counts };
}

/** The service on the same route (a deployed policy by name, one bearer token): one process of role `all`, or (split) an `api` and a `worker`. */
async function measureService(autocannon, redisPid, { split }) {
  const service = await prepareBenchService('floor');
  let running = [];
  try {
    running = split ? Object.values(await startSplitBenchService(service)) : [await startBenchService(service)];
    const deployed = await signedPost(service.base, '/api/v1/policies', JSON.stringify({ source: POLICY_SOURCE, locale: 'en-US' }), service.secret, DEPLOY_ROLE);
    if (deployed.status !== 201) throw new Error(`deploying ${DEPLOYED_MODULE} failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
    const [kid, jwtSecret] = service.env.JWT_KEYS.split(':');
    const token = await createTokenSigner(createJwtKeyRing([{ kid, secret: jwtSecret }], 'bench')).sign({ subject: 'bench-client', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds: 3600 });
    await checkAnswers(service.base, token);
    const name = split ? '(s2) the service, api + worker processes' : '(s) the service: deployed policy by name, bearer, one process';
    return await measure(autocannon, name, { url: service.base, connections: CONNECTIONS, requests: bearerRequests(token) }, running.map((child) => child.child.pid), redisPid);
  } finally {
    for (const child of running.reverse()) await stopChild(child);
    await removeBenchService(service);
  }
}

/** The service's CPU per request by stage on the same route, from bench/http/profile.mjs (its own service run, under --cpu-prof). */
function profileService() {
  const profiled = spawnSync(process.execPath, [join(projectRoot, 'bench', 'http', 'profile.mjs'), 'stored-bearer', String(DURATION_S)], { cwd: projectRoot, encoding: 'utf8' });
  if (profiled.status !== 0) throw new Error(`bench/http/profile.mjs failed: ${profiled.stderr}`);
  const stages = new Map();
  for (const match of profiled.stdout.matchAll(/^ {2}(\S.*?)\s+([\d.]+) µs/gm)) stages.set(match[1], Number(match[2]));
  const perJob = /\(([\d.]+) requests per job\)/.exec(profiled.stdout);
  return { stages, requestsPerJob: perJob === null ? null : Number(perJob[1]) };
}

/** OPA's REST server on the same rule, without decision logs; answers checked first. */
async function measureOpa(autocannon, binary) {
  const opa = await startOpa(binary, { decisionLogs: false });
  try {
    const requests = SAMPLES.map((sample) => ({ method: 'POST', path: OPA_DECISION_PATH, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: sample }) }));
    for (const request of requests) {
      const response = await fetch(`${opa.base}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
      deepStrictEqual((await response.json()).result, priceInJs(JSON.parse(request.body).input), 'OPA answers differently from the plain JS function');
    }
    return await measure(autocannon, `(o) OPA ${OPA_VERSION} REST, no decision log`, { url: opa.base, connections: CONNECTIONS, requests }, [opa.child.pid], null);
  } finally {
    await stopOpa(opa);
  }
}

async function main() {
  const autocannon = loadAutocannon();
  const redisPid = redisServerPid();
  console.log("Floor of the service's promises, from raw parts, against the service and OPA on the same rule");
  console.log(`  machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start; load generator in this process`);
  console.log('  raw server: bench/floor/raw-server.mjs, one process for (1)-(4) (the BullMQ worker and the evaluation thread in it, as the service\'s role `all`), two for (5)-(6) (as its `api` and `worker`), Redis ' + REDIS_URL);
  console.log(`  requests: a deployed policy by name with one bearer token, ${SAMPLES.length} contexts of bench/language/loan-pricing.mjs in rotation; answers checked equal to the plain JS function first`);
  console.log(`  runs: ${WARMUP_S} s warm-up, then ${DURATION_S} s each, ${CONNECTIONS} connections; CPU per request sent, from /proc (every thread)`);
  console.log(quick ? '  QUICK=1: tiny run, numbers are not meaningful\n' : '');

  const rows = [];
  for (const stage of STAGES) rows.push(await measureStage(autocannon, stage, redisPid));
  const service = await measureService(autocannon, redisPid, { split: false });
  const splitService = await measureService(autocannon, redisPid, { split: true });
  const profile = profileService();
  // The full run installs OPA when it is missing; QUICK=1 skips it then (CI's smoke run).
  const opa = opaBinary({ install: !quick });
  const peer = opa === null ? null : await measureOpa(autocannon, opa);
  if (peer === null) console.log(`  OPA ${OPA_VERSION} is not installed: QUICK=1 skips it (the full run installs it with go install)\n`);

  const totalCpu = (row) => (row.serverCpuUs === null ? null : row.serverCpuUs + (row.redisCpuUs ?? 0));
  const serviceStage = (stage) => SERVICE_STAGES[stage].reduce((sum, name) => sum + (profile.stages.get(name) ?? 0), 0);
  printTable(
    ['run', 'requests/s', 'p50 ms', 'p99 ms', 'server CPU µs/request', 'Redis CPU µs/request', 'total CPU µs/request', 'this stage adds, µs/request', "the service's CPU in this stage, µs/request", 'requests/s vs OPA'],
    [...rows, service, splitService, ...(peer === null ? [] : [peer])].map((row, i) => [
      row.run,
      fmt(row.reqPerSec),
      fmt(row.p50, 1),
      fmt(row.p99, 1),
      fmt(row.serverCpuUs),
      fmt(row.redisCpuUs),
      fmt(totalCpu(row)),
      row.stage === undefined || isSplit(row.stage) ? '-' : fmt(i === 0 ? totalCpu(row) : totalCpu(row) - totalCpu(rows[i - 1])),
      row.stage === undefined || isSplit(row.stage) ? (row === service ? fmt(profile.stages.get('total') ?? null) : '-') : fmt(serviceStage(row.stage)),
      peer === null ? '-' : `${fmt(row.reqPerSec / peer.reqPerSec, 2)}×`,
    ]),
  );
  console.log('');
  const [, , queued, all, auditInApi, auditInWorker] = rows;
  console.log(`items per job: (3) ${fmt(queued.counts.items / queued.counts.jobs, 1)}, (4) ${fmt(all.counts.items / all.counts.jobs, 1)}, the service ${fmt(profile.requestsPerJob, 1)} (its profiled run)`);
  console.log(`audit: every answered request of (2)-(6) has its record (${rows.slice(1).map((row) => `${fmt(row.counts.records)}`).join(', ')} records)`);
  console.log(`the service (s) spends ${fmt(totalCpu(service) / totalCpu(all), 2)}× the CPU per request of all promises from raw parts (4) and reaches ${fmt(service.reqPerSec / all.reqPerSec, 2)}× its rate`);
  console.log(
    `the service's CPU by stage comes from its profile under --cpu-prof (${fmt(profile.stages.get('total') ?? null)} µs/request in all, without Redis); ` +
      `its stages left out of the column above: ${[...profile.stages].filter(([name]) => name !== 'total' && !Object.values(SERVICE_STAGES).flat().includes(name)).map(([name, us]) => `${name} ${fmt(us)}`).join(', ')}`,
  );
  if (peer !== null) console.log(`OPA (o): ${fmt(peer.serverCpuUs)} µs CPU per request; all promises from raw parts (4) reach ${fmt(all.reqPerSec / peer.reqPerSec, 2)}× its rate`);
  console.log(
    `two processes from raw parts: the audit record in the api process (5) ${fmt(auditInApi.reqPerSec)} requests/s, in the worker (6) ${fmt(auditInWorker.reqPerSec)}` +
      `${peer === null ? '' : ` (${fmt(auditInApi.reqPerSec / peer.reqPerSec, 2)}× and ${fmt(auditInWorker.reqPerSec / peer.reqPerSec, 2)}× OPA)`}; the service as deployed (s2) reaches ${fmt(splitService.reqPerSec / auditInApi.reqPerSec, 2)}× of (5)`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

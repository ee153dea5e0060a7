// CPU budget per request by stage, from V8 profiles of the built service under load: starts the
// service (role `all`) with --cpu-prof, drives one route with autocannon, stops it, and sums each
// sample's self time into the stage of the innermost frame that names one (src/api/… → HTTP, auth,
// rate limit; src/jobs, the dispatcher and BullMQ → dispatch and queue hop; Piscina → thread hop;
// language and the thread → evaluation; audit, rollups…). Threads' profiles count too. Prints µs per request.
//   node bench/http/profile.mjs [route] [seconds]     route: stored-bearer (default), stored-signed, source-signed, source-batch
//   SPLIT=1: an `api` and a `worker` process instead of one of role `all`, each process's total shown too.
//   CONNECTIONS=N: that many connections instead of 64.
// Run after `npm run build`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJwtKeyRing, createTokenSigner } from '../../dist/src/auth/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { Redis } from 'ioredis';
import { DEPLOY_ROLE, prepareBenchService, REDIS_URL, removeBenchService, startBenchService, startSplitBenchService, TENANT } from '../support/bench-service.mjs';
import { stopChild } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon } from '../support/load.mjs';
import { signedPool, signedPost } from '../support/signed-requests.mjs';

const route = process.argv[2] ?? 'stored-bearer';
const seconds = Number(process.argv[3] ?? 10);
// SPLIT=1: the service as docker-compose deploys it, an `api` and a `worker` process (default: one process, role `all`).
const split = process.env.SPLIT === '1';
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 64);
// DETAIL=N prints the N functions with the most self time, with their stage.
const details = process.env.DETAIL ? new Map() : null;

/** Stage of a frame, or null when the frame says nothing (node internals, anonymous glue). */
const STAGES = [
  ['auth', /dist\/src\/auth\/|dist\/src\/api\/routes\/(evaluation-bearer|signed-or-bearer|evaluation-signing)|node_modules\/jose\//],
  ['rate limit', /rate-limit|rate-limiter-flexible/],
  ['validation', /dist\/src\/(evaluation\/(evaluation-request|context-bounds)|kernel\/)|node_modules\/zod\//],
  ['policy lookup', /dist\/src\/evaluation\/policy-resolver|dist\/src\/policies\/|dist\/src\/store\/.*polic/],
  ['audit', /dist\/src\/audit\/|dist\/src\/evaluation\/(source-evaluation-audit|stored-evaluation-audit)|dist\/src\/store\/.*audit/],
  ['rollups', /rollup/],
  ['response', /dist\/src\/evaluation\/evaluation-response/],
  ['dispatch and queue hop', /dist\/src\/jobs\/|dist\/src\/evaluation\/(evaluation-dispatcher|caller-gone|queue\/)|node_modules\/bullmq\/|node_modules\/msgpackr/],
  ['thread hop', /node_modules\/piscina\/|dist\/src\/engine\//],
  ['evaluation', /dist\/workers\/|dist\/src\/language\//],
  ['store (SQLite)', /better-sqlite3|dist\/src\/store\//],
  ['HTTP and parsing', /dist\/src\/api\/|node_modules\/(koa|@koa|koa-body|co-body|raw-body|inflation|iconv-lite|type-is|content-type|statuses|http-errors|on-finished)/],
];
/** Frames that only say where the time went when no stage above is on the stack. */
const FALLBACK = [
  ['Redis client (replies)', /node_modules\/(ioredis|redis-parser|@ioredis)\//],
  ['HTTP and parsing', /^node:(_http|http|net|stream|internal\/streams|internal\/http)|node:_http/],
  ['logging', /node_modules\/(pino|sonic-boom|thread-stream)/],
];

function stageOf(url, table) {
  for (const [stage, pattern] of table) if (pattern.test(url)) return stage;
  return null;
}

/** µs of self time per stage in one .cpuprofile. */
function budget(profile, role) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageCache = new Map();
  const stageOfNode = (id) => {
    if (stageCache.has(id)) return stageCache.get(id);
    const name = byId.get(id).callFrame.functionName;
    // A Piscina thread waiting for work sits in atomicsWaitLoop: blocked, not computing.
    const idle = name === '(idle)' || name === '(program)' || name === '(root)' || name === 'atomicsWaitLoop';
    let stage = name === '(garbage collector)' ? 'GC' : idle ? 'idle' : null;
    let fallback = null;
    // Loading modules is start-up, whatever runs inside it; not part of any request.
    for (let at = id; stage === null && at !== undefined; at = parent.get(at)) {
      if (/^node:internal\/(modules|bootstrap)\//.test(byId.get(at).callFrame.url)) stage = 'start-up';
    }
    for (let at = id; stage === null && at !== undefined; at = parent.get(at)) {
      const { url } = byId.get(at).callFrame;
      stage = stageOf(url, STAGES);
      fallback ??= stageOf(url, FALLBACK);
    }
    stage ??= fallback ?? 'other';
    stageCache.set(id, stage);
    return stage;
  };
  const totals = new Map();
  profile.samples.forEach((id, i) => {
    const stage = stageOfNode(id);
    totals.set(stage, (totals.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
    if (details !== null) {
      const { functionName, url, lineNumber } = byId.get(id).callFrame;
      const key = `${split ? `${role} ` : ''}${stage} | ${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*dist\//, '')}:${lineNumber + 1}`;
      details.set(key, (details.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
  });
  return totals;
}

async function main() {
  const autocannon = loadAutocannon();
  const service = await prepareBenchService('profile');
  const profileDir = mkdtempSync(join(tmpdir(), 'pe-profile-'));
  const nodeFlags = process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : [];
  // Each process profiles into a directory of its own: the budget is also shown per process.
  const profileArgs = (role) => {
    mkdirSync(join(profileDir, role), { recursive: true });
    return [...nodeFlags, '--cpu-prof', `--cpu-prof-dir=${join(profileDir, role)}`];
  };
  const running = split ? Object.values(await startSplitBenchService(service, profileArgs)) : [await startBenchService(service, profileArgs('all'))];
  let requests = 0;
  // Evaluations per request: the budget is per evaluation.
  let perRequest = 1;
  try {
    const deployBody = JSON.stringify({ source: POLICY_SOURCE, locale: 'en-US' });
    const deployed = await signedPost(service.base, '/api/v1/policies', deployBody, service.secret, DEPLOY_ROLE);
    if (deployed.status !== 201) throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
    const storedBodies = SAMPLES.map((context) => JSON.stringify({ policyModule: 'bench.loan', policyFunction: FUNCTION_NAME, context }));
    const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context, locale: 'en-US' }));
    let requestsOption;
    let connections = CONNECTIONS;
    if (route === 'stored-bearer') {
      const [kid, secret] = service.env.JWT_KEYS.split(':');
      const token = await createTokenSigner(createJwtKeyRing([{ kid, secret }], 'bench')).sign({ subject: 'bench', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds: 3600 });
      const headers = { 'content-type': 'application/json', 'x-tenant-id': TENANT, authorization: `Bearer ${token}` };
      requestsOption = storedBodies.map((body) => ({ method: 'POST', path: '/api/v1/policies/evaluate', headers, body }));
    } else if (route === 'stored-signed') {
      requestsOption = signedPool(storedBodies, '/api/v1/policies/evaluate', service.secret, 20_000 * (seconds + 3)).requests;
    } else if (route === 'source-signed') {
      requestsOption = signedPool(sourceBodies, '/api/v1/policies/evaluate-source', service.secret, 20_000 * (seconds + 3)).requests;
    } else if (route === 'source-batch') {
      const items = Array.from({ length: 100 }, (_, i) => JSON.parse(sourceBodies[i % sourceBodies.length]));
      requestsOption = signedPool([JSON.stringify({ items })], '/api/v1/policies/evaluate-source/batch', service.secret, 1000 * (seconds + 3)).requests;
      connections = 16;
      perRequest = 100;
    } else {
      throw new Error(`unknown route ${route}`);
    }
    await runAutocannon(autocannon, { url: service.base, connections, duration: 3, requests: requestsOption });
    const result = await runAutocannon(autocannon, { url: service.base, connections, duration: seconds, requests: requestsOption });
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    // Warm-up and measurement are both in the profile: count both.
    requests = Math.round(result.requests.sent * (1 + 3 / seconds)) * perRequest;
    console.log(`${route}: ${Math.round(result['2xx'] / result.duration)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  } finally {
    for (const child of running.reverse()) await stopChild(child);
  }
  const totals = new Map();
  const byProcess = [];
  for (const role of readdirSync(profileDir)) {
    let busy = 0;
    for (const file of readdirSync(join(profileDir, role))) {
      const profile = JSON.parse(readFileSync(join(profileDir, role, file), 'utf8'));
      for (const [stage, us] of budget(profile, role)) {
        totals.set(stage, (totals.get(stage) ?? 0) + us);
        if (stage !== 'idle' && stage !== 'start-up') busy += us;
      }
    }
    byProcess.push([role, busy]);
  }
  totals.delete('idle');
  const startUp = totals.get('start-up') ?? 0;
  totals.delete('start-up');
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  console.log(`CPU per evaluation by stage (${requests} evaluations, all threads, idle excluded):`);
  for (const [stage, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${stage.padEnd(26)} ${(us / requests).toFixed(1).padStart(7)} µs  ${((100 * us) / sum).toFixed(1).padStart(5)} %`);
  }
  if (details !== null) {
    for (const [key, us] of [...details].filter(([key]) => !/^(\w+ )?(idle|start-up) \|/.test(key)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.DETAIL))) {
      console.log(`    ${(us / requests).toFixed(1).padStart(7)} µs  ${key}`);
    }
  }
  console.log(`  ${'total'.padEnd(26)} ${(sum / requests).toFixed(1).padStart(7)} µs   (start-up, not counted: ${(startUp / 1000).toFixed(0)} ms)`);
  if (split) for (const [role, us] of byProcess) console.log(`  ${`of it, the ${role} process`.padEnd(26)} ${(us / requests).toFixed(1).padStart(7)} µs`);
  const redis = new Redis(REDIS_URL);
  const jobIds = await redis.keys(`{${service.prefix}:policy-evaluate}:policy-evaluate:id`);
  const jobs = jobIds.length === 1 ? Number(await redis.get(jobIds[0])) : null;
  await redis.quit();
  if (jobs !== null) console.log(`policy-evaluate jobs: ${jobs} (${(requests / jobs).toFixed(1)} requests per job)`);
  if (process.env.KEEP_PROFILES === '1') console.log(`profiles kept in ${profileDir}`);
  else rmSync(profileDir, { recursive: true, force: true });
  await removeBenchService(service);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

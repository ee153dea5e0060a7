// HTTP benchmark of policy evaluation: the built service as docker-compose deploys it (an `api`
// process, and a `worker` process with the BullMQ `policy-evaluate` consumer and the evaluation
// threads; one row also in one process of role `all`), SQLite store in a temp DATA_DIR, local Redis
// under a unique key prefix, driven by autocannon, against OPA's REST server on the same rule (the peer,
// measured in the same run), a Koa hello-world (the ceiling) and a floor: the least work any signed
// answer needs (signature check and nonce claim) without the service around it. Routes: evaluate-
// source signed, a deployed policy by name with a bearer token and signed, a GraphQL decision and
// the batch endpoint. Every evaluation is audited; the audit chain is counted and verified afterwards.
// Run through `npm run bench:http` (QUICK=1 for a tiny run).
import { deepStrictEqual } from 'node:assert';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyChain } from '../../dist/src/audit/index.js';
import { createJwtKeyRing, createTokenSigner } from '../../dist/src/auth/index.js';
import { openSqliteStore } from '../../dist/src/store/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, priceInJs, SAMPLES } from '../language/loan-pricing.mjs';
import { DEPLOY_ROLE, prepareBenchService, REDIS_URL, removeBenchService, startBenchService, startSplitBenchService, TENANT } from '../support/bench-service.mjs';
import { startChild, stopChild } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon, summariseRun } from '../support/load.mjs';
import { OPA_DECISION_PATH, OPA_VERSION, opaBinary, startOpa, stopOpa } from '../support/opa.mjs';
import { signedPool, signedPost } from '../support/signed-requests.mjs';
import { redisServerPid } from '../support/redis-server-pid.mjs';
import { fmt, printTable } from '../support/table.mjs';
import { GRAPHQL_QUERY, GRAPHQL_SAMPLES } from '../support/graphql-decision.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.env.QUICK === '1';

const CONNECTIONS = 64;
const BATCH_CONNECTIONS = 16;
const BATCH_ITEMS = 100;
const DURATION_S = quick ? 1 : 10;
const WARMUP_S = quick ? 1 : 3;
const SOURCE_PATH = '/api/v1/policies/evaluate-source';
const BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
// Signatures made before the clock starts; more than any run here can use (checked after each run).
const SIGNATURE_RATE_CAP = 30_000;

/** CPU time (user + system, every thread) of a process so far, in microseconds; null off Linux. */
function processCpuUs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

/** One autocannon run, with the CPU the server, Redis and this load generator spent on it. */
async function cannon(autocannon, options) {
  // The server may be several processes (the service's api and worker): their CPU is summed.
  const serverCpuUs = () => {
    const each = options.serverPids.map(processCpuUs);
    return each.includes(null) ? null : each.reduce((a, b) => a + b, 0);
  };
  const pids = { redis: options.redisPid ?? null };
  const before = { server: serverCpuUs(), redis: pids.redis && processCpuUs(pids.redis), client: process.cpuUsage() };
  const result = await runAutocannon(autocannon, options);
  const client = process.cpuUsage(before.client);
  const spent = (key, now) => (before[key] === null || before[key] === undefined ? null : now() - before[key]);
  result.cpuUs = { server: spent('server', serverCpuUs), redis: spent('redis', () => processCpuUs(pids.redis)), client: client.user + client.system };
  return result;
}

function summarise(name, result, evaluationsPerRequest) {
  const row = summariseRun(name, result);
  // Per request sent (answered or cut off at the end of the run): CPU does not care which.
  const perRequest = (us) => (us === null ? null : us / row.sent);
  return {
    ...row,
    evalPerSec: evaluationsPerRequest === 0 ? null : (row.requests * evaluationsPerRequest) / result.duration,
    evaluations: row.requests * evaluationsPerRequest,
    serverCpuUs: perRequest(result.cpuUs.server),
    redisCpuUs: evaluationsPerRequest === 0 ? null : perRequest(result.cpuUs.redis),
    clientCpuUs: perRequest(result.cpuUs.client),
  };
}

/** Starts a standalone server of this folder (it prints its port), warms it up, measures one run. */
async function measureStandalone(autocannon, script, env, options, name) {
  const server = startChild([join(here, script)], env);
  try {
    const port = await new Promise((resolve, reject) => {
      server.child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
      server.exited.then((code) => reject(new Error(`${script} exited (${code}): ${server.output()}`)));
    });
    const run = { ...options(`http://127.0.0.1:${port}/`), serverPids: [server.child.pid] };
    await cannon(autocannon, { ...run, duration: WARMUP_S });
    return summarise(name, await cannon(autocannon, { ...run, duration: DURATION_S }), 0);
  } finally {
    await stopChild(server);
  }
}

/**
 * OPA's REST server on the same rule: its answers must equal the plain JS function's on every
 * sample before anything is timed; then one run without and one with decision logs.
 */
async function measureOpa(autocannon, binary, decisionLogs, name) {
  const opa = await startOpa(binary, { decisionLogs });
  try {
    for (const sample of SAMPLES) {
      const response = await fetch(`${opa.base}${OPA_DECISION_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: sample }) });
      deepStrictEqual((await response.json()).result, priceInJs(sample), 'OPA answers differently from the other engines');
    }
    const requests = SAMPLES.map((sample) => ({ method: 'POST', path: OPA_DECISION_PATH, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: sample }) }));
    const run = { url: opa.base, connections: CONNECTIONS, requests, serverPids: [opa.child.pid] };
    await cannon(autocannon, { ...run, duration: WARMUP_S });
    return summarise(name, await cannon(autocannon, { ...run, duration: DURATION_S }), 1);
  } finally {
    await stopOpa(opa);
  }
}

const DEPLOYED_PATH = '/api/v1/policies/evaluate';
const GRAPHQL_PATH = '/graphql';
const DEPLOYED_MODULE = 'bench.loan';

/** A bearer token of the benchmark tenant, signed with the service's JWT key. */
async function benchToken(env) {
  const [kid, secret] = env.JWT_KEYS.split(':');
  return createTokenSigner(createJwtKeyRing([{ kid, secret }], 'bench')).sign({ subject: 'bench-client', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds: 3600 });
}

/** Deploys the rule by name, then checks every route's answers against the plain JS function before anything is timed. */
async function prepareAnswers(base, secret, token, sourceBodies, deployedBodies) {
  const deployed = await signedPost(base, '/api/v1/policies', JSON.stringify({ source: POLICY_SOURCE, locale: 'en-US' }), secret, DEPLOY_ROLE);
  if (deployed.status !== 201) throw new Error(`deploying ${DEPLOYED_MODULE} failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  for (let i = 0; i < SAMPLES.length; i++) {
    const expected = priceInJs(SAMPLES[i]);
    const viaSource = await signedPost(base, SOURCE_PATH, sourceBodies[i], secret);
    deepStrictEqual(viaSource.body?.result, expected, `evaluate-source answers differently: ${JSON.stringify(viaSource.body)}`);
    const viaName = await fetch(`${base}${DEPLOYED_PATH}`, { method: 'POST', headers: bearerHeaders(token), body: deployedBodies[i] });
    deepStrictEqual((await viaName.json()).result, expected, 'the deployed policy answers differently');
  }
  for (const [application, applicant] of GRAPHQL_SAMPLES) {
    const answer = await signedPost(base, GRAPHQL_PATH, JSON.stringify({ query: GRAPHQL_QUERY, variables: { application, applicant } }), secret);
    if (answer.status !== 200 || answer.body?.errors || typeof answer.body?.data?.evaluateLoanEligibility?.eligible !== 'boolean') {
      throw new Error(`GraphQL decision failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }
}

const bearerHeaders = (token) => ({ 'content-type': 'application/json', 'x-tenant-id': TENANT, authorization: `Bearer ${token}` });

async function main() {
  const autocannon = loadAutocannon();
  const service = await prepareBenchService('http');
  const { base, prefix, secret } = service;

  const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context, locale: 'en-US' }));
  const deployedBodies = SAMPLES.map((context) => JSON.stringify({ policyModule: DEPLOYED_MODULE, policyFunction: FUNCTION_NAME, context }));
  const graphqlBodies = GRAPHQL_SAMPLES.map(([application, applicant]) => JSON.stringify({ query: GRAPHQL_QUERY, variables: { application, applicant } }));
  const batchBody = JSON.stringify({
    items: Array.from({ length: BATCH_ITEMS }, (_, i) => ({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context: SAMPLES[i % SAMPLES.length], locale: 'en-US' })),
  });

  const lines = POLICY_SOURCE.trimEnd().split('\n').length;
  console.log('HTTP benchmark: policy evaluation through the service, against OPA on the same rule');
  console.log(`  machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, load generator in this process`);
  console.log(`  service: dist/src/main.js as docker-compose deploys it, an api and a worker process (and (g1) one process of role all), SQLite in a temp DATA_DIR, Redis ${REDIS_URL} prefix ${prefix}, LOG_LEVEL=warn`);
  console.log(`  policy: bench/language/loan-pricing.mjs (${lines} lines, ${SAMPLES.length} contexts in rotation), in Rego for OPA (bench/peers/opa/loan.rego); answers checked equal first`);
  console.log(`  requests: signed ones (HMAC v1) carry a distinct nonce each, prepared before the clock starts; bearer ones one token; every evaluation audited`);
  console.log(`  runs: ${WARMUP_S} s warm-up, then ${DURATION_S} s each; ${CONNECTIONS} connections, the batch ${BATCH_CONNECTIONS} connections × ${BATCH_ITEMS} items`);
  console.log(quick ? '  QUICK=1: tiny run, numbers are not meaningful\n' : '');

  const redisPid = redisServerPid();
  // The full run installs OPA when it is missing; QUICK=1 skips it then (CI's smoke run).
  const opa = opaBinary({ install: !quick });
  const opaRows = [];
  if (opa !== null) {
    opaRows.push(await measureOpa(autocannon, opa, false, `(e) OPA ${OPA_VERSION} REST, no decision log`));
    opaRows.push(await measureOpa(autocannon, opa, true, `(f) OPA ${OPA_VERSION} REST, decision log to console`));
  } else {
    console.log(`  OPA ${OPA_VERSION} is not installed: QUICK=1 skips it (the full run installs it with go install)`);
  }

  // (a) the ceiling.
  const ceiling = await measureStandalone(autocannon, 'koa-hello.mjs', {}, (url) => ({ url, connections: CONNECTIONS }), '(a) Koa hello-world, GET');
  // (d) the floor: what a signed evaluate-source costs at the least.
  const floorPool = signedPool(sourceBodies, SOURCE_PATH, secret, SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S));
  const floorEnv = { FLOOR_SECRET: secret, REDIS_URL, FLOOR_KEY_PREFIX: `${prefix}:floor-nonce:` };
  const floor = await measureStandalone(
    autocannon,
    'koa-floor.mjs',
    floorEnv,
    (url) => ({ url: `${url.replace(/\/$/, '')}${SOURCE_PATH}`, connections: CONNECTIONS, requests: floorPool.requests }),
    '(d) floor: Koa + signature check + nonce in Redis + JSON parse',
  );
  // (j) the floor of what the service promises for every evaluation: (d) + the queue hop + an audit record.
  const mandatedPool = signedPool(sourceBodies, SOURCE_PATH, secret, SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S));
  const mandated = await measureStandalone(
    autocannon,
    'koa-floor-mandated.mjs',
    { ...floorEnv, FLOOR_KEY_PREFIX: `${prefix}:floor-mandated:` },
    (url) => ({ url: `${url.replace(/\/$/, '')}${SOURCE_PATH}`, connections: CONNECTIONS, requests: mandatedPool.requests }),
    '(j) floor + BullMQ queue hop + audit record (no evaluation)',
  );

  // Evaluations answered (at least this many records) and sent (at most this many) over all runs.
  const evaluations = { answered: 0, sent: 0 };
  // The processes of the service now running, stopped gracefully (every handler finishes) before the chain is read.
  let running = [];
  const stopService = async () => {
    for (const child of running.splice(0).reverse()) await stopChild(child);
  };
  try {
    running = Object.values(await startSplitBenchService(service));
    const token = await benchToken(service.env);
    await prepareAnswers(base, secret, token, sourceBodies, deployedBodies);
    // The checks before timing are audited too.
    evaluations.answered += 2 * SAMPLES.length + GRAPHQL_SAMPLES.length;
    evaluations.sent += 2 * SAMPLES.length + GRAPHQL_SAMPLES.length;

    /** A warm-up and a measured run of one route; every request counts its evaluations. */
    const measure = async (name, requests, connections, perRequest) => {
      const run = { url: base, serverPids: running.map((child) => child.child.pid), redisPid, connections, requests };
      for (const [label, duration] of [['warm-up', WARMUP_S], [name, DURATION_S]]) {
        const row = summarise(label, await cannon(autocannon, { ...run, duration }), perRequest);
        evaluations.answered += row.evaluations;
        evaluations.sent += row.sent * perRequest;
        if (label === name) return row;
      }
    };
    const signedSize = SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S);
    const source = await measure('(b) evaluate-source, signed', signedPool(sourceBodies, SOURCE_PATH, secret, signedSize).requests, CONNECTIONS, 1);
    const bearerRequests = deployedBodies.map((body) => ({ method: 'POST', path: DEPLOYED_PATH, headers: bearerHeaders(token), body }));
    const deployedBearer = await measure('(g) deployed policy by name, bearer', bearerRequests, CONNECTIONS, 1);
    const deployedSigned = await measure('(h) deployed policy by name, signed', signedPool(deployedBodies, DEPLOYED_PATH, secret, signedSize).requests, CONNECTIONS, 1);
    const graphql = await measure('(i) GraphQL decision (built-in lending rule), signed', signedPool(graphqlBodies, GRAPHQL_PATH, secret, signedSize).requests, CONNECTIONS, 1);
    const batchPool = signedPool([batchBody], BATCH_PATH, secret, Math.ceil((SIGNATURE_RATE_CAP / BATCH_ITEMS) * (WARMUP_S + DURATION_S)) + 1000);
    const batch = await measure(`(c) evaluate-source/batch, ${BATCH_ITEMS} items`, batchPool.requests, BATCH_CONNECTIONS, BATCH_ITEMS);
    await stopService();
    // The embedded default: everything in one process, on the same store and chain.
    running = [await startBenchService(service)];
    const oneProcess = await measure('(g1) deployed policy by name, bearer, one process (role all)', bearerRequests, CONNECTIONS, 1);
    await stopService();
    const audit = await openSqliteStore(service.storePath);
    let verification;
    try {
      verification = await verifyChain(audit.audit, TENANT);
    } finally {
      await audit.close();
    }

    const rows = [ceiling, source, deployedBearer, oneProcess, deployedSigned, graphql, batch, floor, mandated, ...opaRows];
    const peer = opaRows[0];
    printTable(
      ['run', 'requests', 'requests/s', 'evaluations/s', 'p50 ms', 'p99 ms', 'requests/s vs (a)', 'evaluations/s vs OPA (e)', 'server CPU µs/request', 'Redis CPU µs/request', 'load generator CPU µs/request'],
      rows.map((row) => [
        row.run,
        fmt(row.requests),
        fmt(row.reqPerSec),
        fmt(row.evalPerSec),
        fmt(row.p50, 1),
        fmt(row.p99, 1),
        `${fmt(row.reqPerSec / ceiling.reqPerSec, 2)}×`,
        peer === undefined || row.evalPerSec === null ? '-' : `${fmt(row.evalPerSec / peer.evalPerSec, 2)}×`,
        fmt(row.serverCpuUs),
        fmt(row.redisCpuUs),
        fmt(row.clientCpuUs),
      ]),
    );
    console.log('');
    console.log(`floor (d): ${fmt(floor.reqPerSec / ceiling.reqPerSec, 2)}× of (a) before any rate limit, queue, evaluation or audit record; (b) reaches ${fmt(source.reqPerSec / floor.reqPerSec, 2)}× of (d)`);
    console.log(`floor of the promises (j): ${fmt(mandated.reqPerSec / floor.reqPerSec, 2)}× of (d)${peer === undefined ? '' : `, ${fmt(mandated.reqPerSec / peer.reqPerSec, 2)}× of OPA (e)`}; (g) reaches ${fmt(deployedBearer.reqPerSec / mandated.reqPerSec, 2)}× of (j)`);
    console.log(`CPU per evaluation in the batch (c): ${fmt(batch.serverCpuUs / BATCH_ITEMS, 1)} µs in the service + ${fmt(batch.redisCpuUs / BATCH_ITEMS, 1)} µs in Redis`);
    if (peer !== undefined) {
      console.log(`targets against OPA without decision logs (e), ${fmt(peer.reqPerSec)} requests/s, p99 ${fmt(peer.p99, 1)} ms:`);
      const target = (row, ratio, withP99) => {
        const got = row.evalPerSec / peer.evalPerSec;
        const met = got >= ratio && (!withP99 || row.p99 <= peer.p99);
        console.log(`  ${row.run}: ≥ ${fmt(ratio, 1)}×${withP99 ? ', p99 ≤ OPA' : ''}: ${met ? 'met' : 'missed'} (${fmt(got, 2)}×, p99 ${fmt(row.p99, 1)} ms)`);
      };
      target(deployedBearer, 1, true);
      target(deployedSigned, 0.9, false);
      target(source, 0.9, false);
      target(graphql, 0.8, false);
      target(batch, 3, false);
      console.log(`  OPA with decision logs (f): ${fmt(opaRows[1].reqPerSec / peer.reqPerSec, 2)}× of (e)`);
    }
    const audited = verification.checked - 1; // the deploy is the one record that is no evaluation
    const complete = verification.valid && audited >= evaluations.answered && audited <= evaluations.sent;
    console.log(
      `audit: ${fmt(verification.checked)} records (${fmt(audited)} evaluations and the deploy), chain ${verification.valid ? 'valid' : `INVALID at ${verification.firstInvalidSeq}: ${verification.reason}`}; ` +
        `${fmt(evaluations.answered)} evaluations answered, ${fmt(evaluations.sent)} sent (warm-ups included; requests cut off at the end of a run are evaluated and audited without being counted as answered)`,
    );
    if (!complete) throw new Error(`audit check failed: ${audited} records for ${evaluations.answered} answered and ${evaluations.sent} sent evaluations`);
  } finally {
    await stopService().catch((error) => console.error(String(error)));
    await removeBenchService(service);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

// GraphQL benchmark: a signed `evaluateLoanEligibility` query against evaluate-source running the
// same rule (policies/lending.loan.policy) with the same inputs, both at 64 connections on the same
// service in the same run. The service is the built one (role `all`: API, BullMQ
// `policy-evaluate` queue and worker threads in one process, SQLite store in a temp DATA_DIR, local
// Redis under a unique key prefix); while it does not serve /graphql, bench/graphql/service.mjs
// composes the same parts with the GraphQL route added. Target: GraphQL ≥ 0.70× the requests/s of
// evaluate-source. Run through `npm run bench:graphql` (QUICK=1 for a tiny run).
import { ensurePackages } from '../support/ensure-packages.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { computeSignature, signRequest } from '../../dist/src/auth/request-signature.js';
import { openSqliteStore } from '../../dist/src/store/index.js';
import { createTenantService } from '../../dist/src/tenants/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const benchDir = join(here, '..');
const quick = process.env.QUICK === '1';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const CONNECTIONS = 64;
const DURATION_S = quick ? 1 : 10;
const WARMUP_S = quick ? 1 : 3;
const TARGET_RATIO = 0.7;
const TENANT = 'bench';
const ROLE = 'MEMBER';
const GRAPHQL_PATH = '/graphql';
const SOURCE_PATH = '/api/v1/policies/evaluate-source';
// Signatures made before the clock starts; more than any run here can use (checked after each run).
const SIGNATURE_RATE_CAP = 15_000;

const LOAN_SOURCE = readFileSync(join(root, 'policies', 'lending.loan.policy'), 'utf8');
const RULE = 'evaluateLoanEligibility';
/** [application, applicant]: eligible, reduced with conditions, rejected. */
const SAMPLES = [
  [
    { requestedAmount: 10000, termMonths: 24, purpose: 'CAR' },
    { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
  ],
  [
    { requestedAmount: 50000, termMonths: 60, purpose: 'BUSINESS' },
    { age: 45, annualIncome: 48000, creditScore: 660, monthlyDebt: 1600, yearsEmployed: 5 },
  ],
  [
    { requestedAmount: 1000, termMonths: 90, purpose: 'CAR' },
    { age: 17, annualIncome: 0, creditScore: 550, monthlyDebt: 100, yearsEmployed: 0 },
  ],
];
const SELECTION = 'eligible maxApprovedAmount interestRate term conditions rejectionReasons';
const QUERY = `query Loan($application: LoanApplication!, $applicant: LoanApplicant!) {
  evaluateLoanEligibility(application: $application, applicant: $applicant) { ${SELECTION} }
}`;
const graphqlBodies = SAMPLES.map(([application, applicant]) => JSON.stringify({ query: QUERY, variables: { application, applicant } }));
// The same rule with the same arguments as a positional context, as the GraphQL layer passes them.
const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: LOAN_SOURCE, functionName: RULE, context, locale: 'en-US' }));

function loadAutocannon() {
  ensurePackages(benchDir, ['autocannon']);
  return createRequire(join(benchDir, 'package.json'))('autocannon');
}

async function unusedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startChild(args, env) {
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, exited, output: () => output };
}

async function stopChild(running) {
  if (running.child.exitCode !== null) return;
  running.child.kill('SIGTERM');
  const code = await running.exited;
  if (code !== 0) throw new Error(`process exited with ${code}:\n${running.output()}`);
}

async function waitForReady(base, running) {
  for (let i = 0; i < 300; i++) {
    if (running.child.exitCode !== null) throw new Error(`service exited during start-up:\n${running.output()}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service did not become ready:\n${running.output()}`);
}

/** One request signed now, for the checks outside the measurement. */
async function signedPost(base, path, body, secret) {
  const headers = signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: TENANT, role: ROLE, secret });
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  return { status: response.status, body: await response.json().catch(() => null) };
}

const sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Signed requests prepared before the clock starts: each body is hashed once, each request gets
 * its own nonce and signature. The server still does every check on every request (timestamp,
 * HMAC over the body, single-use nonce in Redis); only the client's signing is moved out of the
 * measurement, as a real client signs on its own machine.
 */
function signedPool(bodies, path, secret, size) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const hashes = bodies.map(sha256Hex);
  const nonces = new Array(size);
  const signatures = new Array(size);
  for (let i = 0; i < size; i++) {
    const nonce = randomBytes(18).toString('base64url');
    nonces[i] = nonce;
    signatures[i] = `v1=${computeSignature(secret, ['POST', path, timestamp, nonce, TENANT, ROLE, hashes[i % bodies.length]].join('\n'))}`;
  }
  let next = 0;
  return {
    used: () => next,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest(request) {
          const i = next++;
          if (i >= size) throw new Error(`signed request pool of ${size} exhausted: raise SIGNATURE_RATE_CAP`);
          return {
            ...request,
            body: bodies[i % bodies.length],
            headers: {
              'content-type': 'application/json',
              'x-tenant-id': TENANT,
              'x-user-role': ROLE,
              'x-policy-timestamp': timestamp,
              'x-policy-nonce': nonces[i],
              'x-policy-signature': signatures[i],
            },
          };
        },
      },
    ],
  };
}

function cannon(autocannon, options) {
  return new Promise((resolve, reject) => {
    autocannon({ url: options.url, connections: CONNECTIONS, duration: options.duration, requests: options.requests, timeout: 30 }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

function summarise(name, result) {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { run: name, requests: result['2xx'], reqPerSec: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Both endpoints must give the same decision for every sample before anything is timed. */
async function checkAnswers(base, secret) {
  for (let i = 0; i < SAMPLES.length; i++) {
    const viaGraphql = await signedPost(base, GRAPHQL_PATH, graphqlBodies[i], secret);
    const viaSource = await signedPost(base, SOURCE_PATH, sourceBodies[i], secret);
    if (viaGraphql.status !== 200 || viaGraphql.body?.errors || !viaGraphql.body?.data?.[RULE]) {
      throw new Error(`GraphQL sample ${i} failed: ${viaGraphql.status} ${JSON.stringify(viaGraphql.body)}`);
    }
    if (viaSource.status !== 200 || viaSource.body?.error) {
      throw new Error(`evaluate-source sample ${i} failed: ${viaSource.status} ${JSON.stringify(viaSource.body)}`);
    }
    if (JSON.stringify(viaGraphql.body.data[RULE]) !== JSON.stringify(viaSource.body.result)) {
      throw new Error(`sample ${i}: GraphQL answered ${JSON.stringify(viaGraphql.body.data[RULE])}, evaluate-source ${JSON.stringify(viaSource.body.result)}`);
    }
  }
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function startTarget(serviceEnv, base, secret) {
  const service = startChild([join(root, 'dist', 'src', 'main.js')], serviceEnv);
  await waitForReady(base, service);
  const probe = await signedPost(base, GRAPHQL_PATH, JSON.stringify({ query: '{ __typename }' }), secret);
  if (probe.status === 200) return { running: service, name: 'the built service (dist/src/main.js, role all)' };
  await stopChild(service);
  console.log(`the built service answers ${probe.status} on /graphql: measuring bench/graphql/service.mjs (the same parts with the GraphQL route)`);
  const composed = startChild([join(here, 'service.mjs')], serviceEnv);
  await waitForReady(base, composed);
  return { running: composed, name: 'bench/graphql/service.mjs (role all parts + GraphQL route)' };
}

async function main() {
  const autocannon = loadAutocannon();
  const dataDir = mkdtempSync(join(tmpdir(), 'pe-bench-graphql-'));
  const prefix = `bench-${randomUUID()}`;
  const port = await unusedPort();
  const base = `http://127.0.0.1:${port}`;

  const store = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
  const { secret } = (await createTenantService(store.tenants).register(TENANT)).secret;
  await store.close();

  const serviceEnv = {
    ROLE: 'all',
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
    // The limiter still runs (one Redis call per request); the quota is set above what a run can spend.
    RATE_LIMIT_POINTS: '1000000000',
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(
      ['ENGINE_THREADS', 'WORKER_CONCURRENCY', 'BATCH_MAX_ITEMS', 'DISPATCH_FLUSH_MS', 'PROGRAM_CACHE_SIZE'].filter((k) => process.env[k]).map((k) => [k, process.env[k]]),
    ),
  };

  console.log(`# GraphQL vs evaluate-source${quick ? ' (QUICK)' : ''}`);
  console.log(`machine: ${cpus().length} CPUs (${availableParallelism()} available), ${cpus()[0]?.model ?? 'unknown'}; Node ${process.version}`);
  console.log(
    `workload: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up then ${DURATION_S} s per endpoint, ${SAMPLES.length} loan applications in turn;` +
      ` every request signed (HMAC, single-use nonce), rate-limited and audited`,
  );

  const target = await startTarget(serviceEnv, base, secret);
  console.log(`service: ${target.name}`);
  const rows = [];
  try {
    await checkAnswers(base, secret);
    const size = SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S);

    const source = signedPool(sourceBodies, SOURCE_PATH, secret, size);
    summarise('warm-up', await cannon(autocannon, { url: base, duration: WARMUP_S, requests: source.requests }));
    rows.push(summarise(`(a) POST ${SOURCE_PATH}, lending.loan source`, await cannon(autocannon, { url: base, duration: DURATION_S, requests: source.requests })));

    const graphql = signedPool(graphqlBodies, GRAPHQL_PATH, secret, size);
    summarise('warm-up', await cannon(autocannon, { url: base, duration: WARMUP_S, requests: graphql.requests }));
    rows.push(summarise(`(b) POST ${GRAPHQL_PATH}, ${RULE} query`, await cannon(autocannon, { url: base, duration: DURATION_S, requests: graphql.requests })));

    // The answers must still be right after the load.
    await checkAnswers(base, secret);

    const [a, b] = rows;
    console.log('');
    console.log('| run | requests | requests/s | p50 ms | p99 ms | requests/s vs (a) |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      console.log(`| ${row.run} | ${fmt(row.requests)} | ${fmt(row.reqPerSec)} | ${fmt(row.p50, 1)} | ${fmt(row.p99, 1)} | ${fmt(row.reqPerSec / a.reqPerSec, 2)}× |`);
    }
    const ratio = b.reqPerSec / a.reqPerSec;
    console.log('');
    console.log(`target: GraphQL ≥ ${fmt(TARGET_RATIO, 2)}× evaluate-source requests/s: ${ratio >= TARGET_RATIO ? 'met' : 'missed'} (${fmt(ratio, 2)}×)`);
    console.log(`signed requests used: ${fmt(source.used())} evaluate-source, ${fmt(graphql.used())} GraphQL (each nonce once)`);
  } finally {
    await stopChild(target.running).catch((error) => console.error(String(error)));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`*${prefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await redis.quit();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

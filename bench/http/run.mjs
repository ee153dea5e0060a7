// HTTP benchmark of policy evaluation: the built service (role `all`: API, BullMQ `policy-evaluate`
// queue and worker threads in one process, SQLite store in a temp DATA_DIR, local Redis under a
// unique key prefix) driven by autocannon, against a Koa hello-world on the same machine measured
// in the same run. Every evaluation is audited; the audit chain is counted and verified afterwards.
// Run through `npm run bench:http` (QUICK=1 for a tiny run).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { computeSignature } from '../../dist/src/auth/request-signature.js';
import { createJwtKeyRing, createTokenSigner } from '../../dist/src/auth/index.js';
import { openSqliteStore } from '../../dist/src/store/index.js';
import { createTenantService } from '../../dist/src/tenants/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const benchDir = join(here, '..');
const quick = process.env.QUICK === '1';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const CONNECTIONS = 64;
const BATCH_CONNECTIONS = 16;
const BATCH_ITEMS = 100;
const DURATION_S = quick ? 1 : 10;
const WARMUP_S = quick ? 1 : 3;
const TENANT = 'bench';
const ROLE = 'MEMBER';
const SOURCE_PATH = '/api/v1/policies/evaluate-source';
const BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
// Signatures made before the clock starts; more than any run here can use (checked after each run).
const SIGNATURE_RATE_CAP = 30_000;

function loadAutocannon() {
  const require = createRequire(join(benchDir, 'package.json'));
  if (!existsSync(join(benchDir, 'node_modules', 'autocannon', 'package.json'))) {
    console.log('installing autocannon in bench/ ...');
    const args = existsSync(join(benchDir, 'package-lock.json')) ? ['ci'] : ['install'];
    const result = spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: benchDir, stdio: 'inherit' });
    if (result.status !== 0) throw new Error('could not install autocannon (bench/package.json)');
  }
  return require('autocannon');
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
  running.child.kill('SIGTERM');
  const code = await running.exited;
  if (code !== 0) throw new Error(`process exited with ${code}:\n${running.output()}`);
}

async function waitForReady(base, running) {
  for (let i = 0; i < 200; i++) {
    if (running.child.exitCode !== null) throw new Error(`service exited during start-up:\n${running.output()}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service did not become ready:\n${running.output()}`);
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
    const canonical = ['POST', path, timestamp, nonce, TENANT, ROLE, hashes[i % bodies.length]].join('\n');
    nonces[i] = nonce;
    signatures[i] = `v1=${computeSignature(secret, canonical)}`;
  }
  let next = 0;
  return {
    used: () => next,
    size,
    /** autocannon hook: a fresh signed request each time. */
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
  };
}

function cannon(autocannon, options) {
  return new Promise((resolve, reject) => {
    autocannon({ url: options.url, connections: options.connections, duration: options.duration, requests: options.requests, timeout: 30 }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

function summarise(name, result, evaluationsPerRequest) {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const seconds = result.duration;
  return {
    run: name,
    requests: result['2xx'],
    reqPerSec: result['2xx'] / seconds,
    evalPerSec: evaluationsPerRequest === 0 ? null : (result['2xx'] * evaluationsPerRequest) / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    evaluations: result['2xx'] * evaluationsPerRequest,
  };
}

const fmt = (n, digits = 0) => (n === null ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

async function main() {
  const autocannon = loadAutocannon();
  const dataDir = mkdtempSync(join(tmpdir(), 'pe-bench-http-'));
  const prefix = `bench-${randomUUID()}`;
  const jwtSecret = randomBytes(32).toString('base64url');
  const port = await unusedPort();
  const base = `http://127.0.0.1:${port}`;

  // The tenant and its signing secret, in the store the service will open.
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
    JWT_KEYS: `bench:${jwtSecret}`,
    // The limiter still runs (one Redis call per request); the quota is set above what a run can spend.
    RATE_LIMIT_POINTS: '1000000000',
    // One JSON line per request would measure the log pipe; warnings and errors still show.
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(
      ['ENGINE_THREADS', 'WORKER_CONCURRENCY', 'BATCH_MAX_ITEMS', 'DISPATCH_FLUSH_MS', 'PROGRAM_CACHE_SIZE'].filter((k) => process.env[k]).map((k) => [k, process.env[k]]),
    ),
  };

  const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context, locale: 'en-US' }));
  const batchBody = JSON.stringify({
    items: Array.from({ length: BATCH_ITEMS }, (_, i) => ({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context: SAMPLES[i % SAMPLES.length], locale: 'en-US' })),
  });

  const lines = POLICY_SOURCE.trimEnd().split('\n').length;
  console.log('HTTP benchmark: policy evaluation through the service');
  console.log(`  machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, load generator in this process`);
  console.log(`  service: dist/src/main.js, role all, SQLite in a temp DATA_DIR, Redis ${REDIS_URL} prefix ${prefix}, LOG_LEVEL=warn`);
  console.log(`  policy: bench/language/loan-pricing.mjs (${lines} lines, ${SAMPLES.length} contexts in rotation), cached after the first request`);
  console.log(`  requests: signed (HMAC v1) with a distinct nonce each, prepared before the clock starts; verified in full by the service`);
  console.log(`  runs: ${WARMUP_S} s warm-up, then ${DURATION_S} s each; (a) and (b) ${CONNECTIONS} connections, (c) ${BATCH_CONNECTIONS} connections × ${BATCH_ITEMS} items`);
  console.log(quick ? '  QUICK=1: tiny run, numbers are not meaningful\n' : '');

  const rows = [];
  let evaluationsSent = 0;

  // (a) the ceiling.
  const hello = startChild([join(here, 'koa-hello.mjs')], {});
  try {
    const helloPort = await new Promise((resolve, reject) => {
      hello.child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
      hello.exited.then((code) => reject(new Error(`koa hello-world exited (${code}): ${hello.output()}`)));
    });
    const url = `http://127.0.0.1:${helloPort}/`;
    await cannon(autocannon, { url, connections: CONNECTIONS, duration: WARMUP_S });
    rows.push(summarise('(a) Koa hello-world, GET', await cannon(autocannon, { url, connections: CONNECTIONS, duration: DURATION_S }), 0));
  } finally {
    await stopChild(hello);
  }

  const service = startChild([join(root, 'dist', 'src', 'main.js')], serviceEnv);
  try {
    await waitForReady(base, service);

    // (b) one evaluation per request.
    const sourceSize = SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S);
    const sourcePool = signedPool(sourceBodies, SOURCE_PATH, secret, sourceSize);
    const sourceRequests = [{ method: 'POST', path: SOURCE_PATH, setupRequest: (r) => sourcePool.setupRequest(r) }];
    const sourceWarm = summarise('warm-up', await cannon(autocannon, { url: base, connections: CONNECTIONS, duration: WARMUP_S, requests: sourceRequests }), 1);
    const source = summarise('(b) evaluate-source, signed', await cannon(autocannon, { url: base, connections: CONNECTIONS, duration: DURATION_S, requests: sourceRequests }), 1);
    rows.push(source);
    evaluationsSent += sourceWarm.evaluations + source.evaluations;

    // (c) the same evaluation, 100 to a request, through the batch endpoint.
    const batchSize = Math.ceil((SIGNATURE_RATE_CAP / BATCH_ITEMS) * (WARMUP_S + DURATION_S)) + 1000;
    const batchPool = signedPool([batchBody], BATCH_PATH, secret, batchSize);
    const batchRequests = [{ method: 'POST', path: BATCH_PATH, setupRequest: (r) => batchPool.setupRequest(r) }];
    const batchWarm = summarise('warm-up', await cannon(autocannon, { url: base, connections: BATCH_CONNECTIONS, duration: WARMUP_S, requests: batchRequests }), BATCH_ITEMS);
    const batch = summarise(`(c) evaluate-source/batch, ${BATCH_ITEMS} items`, await cannon(autocannon, { url: base, connections: BATCH_CONNECTIONS, duration: DURATION_S, requests: batchRequests }), BATCH_ITEMS);
    rows.push(batch);
    evaluationsSent += batchWarm.evaluations + batch.evaluations;

    // Every answered evaluation must be in the tenant's audit chain, and the chain must verify.
    const token = await createTokenSigner(createJwtKeyRing([{ kid: 'bench', secret: jwtSecret }], 'bench')).sign({
      subject: 'bench-auditor',
      tenantId: TENANT,
      roles: ['ADMIN'],
      ttlSeconds: 3600,
    });
    const verification = await (await fetch(`${base}/api/v1/audit/verify`, { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': TENANT } })).json();

    const ceiling = rows[0].reqPerSec;
    console.log('| run | requests | requests/s | evaluations/s | p50 ms | p99 ms | requests/s vs (a) | evaluations/s vs (a) |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      const evalRatio = row.evalPerSec === null ? '-' : `${fmt(row.evalPerSec / ceiling, 2)}×`;
      console.log(
        `| ${row.run} | ${fmt(row.requests)} | ${fmt(row.reqPerSec)} | ${fmt(row.evalPerSec)} | ${fmt(row.p50, 1)} | ${fmt(row.p99, 1)} | ${fmt(row.reqPerSec / ceiling, 2)}× | ${evalRatio} |`,
      );
    }
    const ratio = source.reqPerSec / ceiling;
    const met = ratio >= 0.5 && source.p99 <= 30;
    console.log('');
    console.log(`target for (b): ≥ 0.50× of (a) with p99 ≤ 30 ms: ${met ? 'met' : 'missed'} (${fmt(ratio, 2)}×, p99 ${fmt(source.p99, 1)} ms)`);
    const audited = verification.checked;
    console.log(
      `audit: ${fmt(evaluationsSent)} evaluations answered (warm-ups included), ${fmt(audited)} SOURCE_EVALUATED records in the chain, chain ${verification.valid ? 'valid' : `INVALID at ${verification.firstInvalidSeq}: ${verification.reason}`}`,
    );
    console.log(`signed requests used: ${fmt(sourcePool.used())} single, ${fmt(batchPool.used())} batch (each nonce once)`);
    if (!verification.valid || audited !== evaluationsSent) {
      throw new Error(`audit mismatch: expected ${evaluationsSent} valid records, found ${audited} (valid: ${verification.valid})`);
    }
  } finally {
    await stopChild(service).catch((error) => console.error(String(error)));
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

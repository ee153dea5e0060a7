// HTTP benchmark of policy evaluation: the built service (role `all`: API, BullMQ `policy-evaluate`
// queue and worker threads in one process, SQLite store in a temp DATA_DIR, local Redis under a
// unique key prefix) driven by autocannon, against a Koa hello-world on the same machine measured
// in the same run. Every evaluation is audited; the audit chain is counted and verified afterwards.
// Run through `npm run bench:http` (QUICK=1 for a tiny run).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { computeSignature } from '../../dist/src/auth/request-signature.js';
import { verifyChain } from '../../dist/src/audit/index.js';
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

function redisServerPid() {
  const found = spawnSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' });
  const pid = Number(found.stdout?.trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

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

/** One autocannon run, with the CPU the server, Redis and this load generator spent on it. */
async function cannon(autocannon, options) {
  const pids = { server: options.serverPid, redis: options.redisPid ?? null };
  const before = { server: processCpuUs(pids.server), redis: pids.redis && processCpuUs(pids.redis), client: process.cpuUsage() };
  const result = await new Promise((resolve, reject) => {
    autocannon({ url: options.url, connections: options.connections, duration: options.duration, requests: options.requests, timeout: 30 }, (error, res) =>
      error ? reject(error) : resolve(res),
    );
  });
  const client = process.cpuUsage(before.client);
  const spent = (key) => (before[key] === null || before[key] === undefined ? null : processCpuUs(pids[key]) - before[key]);
  result.cpuUs = { server: spent('server'), redis: spent('redis'), client: client.user + client.system };
  return result;
}

function summarise(name, result, evaluationsPerRequest) {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const seconds = result.duration;
  // Per request sent (answered or cut off at the end of the run): CPU does not care which.
  const perRequest = (us) => (us === null ? null : us / result.requests.sent);
  return {
    run: name,
    requests: result['2xx'],
    sent: result.requests.sent,
    reqPerSec: result['2xx'] / seconds,
    evalPerSec: evaluationsPerRequest === 0 ? null : (result['2xx'] * evaluationsPerRequest) / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    evaluations: result['2xx'] * evaluationsPerRequest,
    serverCpuUs: perRequest(result.cpuUs.server),
    redisCpuUs: evaluationsPerRequest === 0 ? null : perRequest(result.cpuUs.redis),
    clientCpuUs: perRequest(result.cpuUs.client),
  };
}

const fmt = (n, digits = 0) => (n === null ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

async function main() {
  const autocannon = loadAutocannon();
  const dataDir = mkdtempSync(join(tmpdir(), 'pe-bench-http-'));
  const prefix = `bench-${randomUUID()}`;
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
    JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
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
  const redisPid = redisServerPid();

  // (a) the ceiling.
  const hello = startChild([join(here, 'koa-hello.mjs')], {});
  try {
    const helloPort = await new Promise((resolve, reject) => {
      hello.child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
      hello.exited.then((code) => reject(new Error(`koa hello-world exited (${code}): ${hello.output()}`)));
    });
    const url = `http://127.0.0.1:${helloPort}/`;
    const run = { url, connections: CONNECTIONS, serverPid: hello.child.pid };
    await cannon(autocannon, { ...run, duration: WARMUP_S });
    rows.push(summarise('(a) Koa hello-world, GET', await cannon(autocannon, { ...run, duration: DURATION_S }), 0));
  } finally {
    await stopChild(hello);
  }

  // Evaluations answered (at least this many records) and sent (at most this many) over all runs.
  const evaluations = { answered: 0, sent: 0 };
  const count = (row, perRequest) => {
    evaluations.answered += row.evaluations;
    evaluations.sent += row.sent * perRequest;
    return row;
  };
  const service = startChild([join(root, 'dist', 'src', 'main.js')], serviceEnv);
  let stopped = false;
  try {
    await waitForReady(base, service);
    const serviceRun = { url: base, serverPid: service.child.pid, redisPid };

    // (b) one evaluation per request.
    const sourcePool = signedPool(sourceBodies, SOURCE_PATH, secret, SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S));
    const single = { ...serviceRun, connections: CONNECTIONS, requests: [{ method: 'POST', path: SOURCE_PATH, setupRequest: (r) => sourcePool.setupRequest(r) }] };
    count(summarise('warm-up', await cannon(autocannon, { ...single, duration: WARMUP_S }), 1), 1);
    const source = count(summarise('(b) evaluate-source, signed', await cannon(autocannon, { ...single, duration: DURATION_S }), 1), 1);
    rows.push(source);

    // (c) the same evaluation, BATCH_ITEMS to a request, through the batch endpoint.
    const batchPool = signedPool([batchBody], BATCH_PATH, secret, Math.ceil((SIGNATURE_RATE_CAP / BATCH_ITEMS) * (WARMUP_S + DURATION_S)) + 1000);
    const batched = { ...serviceRun, connections: BATCH_CONNECTIONS, requests: [{ method: 'POST', path: BATCH_PATH, setupRequest: (r) => batchPool.setupRequest(r) }] };
    count(summarise('warm-up', await cannon(autocannon, { ...batched, duration: WARMUP_S }), BATCH_ITEMS), BATCH_ITEMS);
    rows.push(count(summarise(`(c) evaluate-source/batch, ${BATCH_ITEMS} items`, await cannon(autocannon, { ...batched, duration: DURATION_S }), BATCH_ITEMS), BATCH_ITEMS));

    // A graceful stop lets every handler finish (also those whose client left at the end of a run).
    await stopChild(service);
    stopped = true;
    const audit = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
    let verification;
    try {
      verification = await verifyChain(audit.audit, TENANT);
    } finally {
      await audit.close();
    }

    const ceiling = rows[0];
    console.log('| run | requests | requests/s | evaluations/s | p50 ms | p99 ms | requests/s vs (a) | evaluations/s vs (a) | server CPU µs/request | Redis CPU µs/request |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      const evalRatio = row.evalPerSec === null ? '-' : `${fmt(row.evalPerSec / ceiling.reqPerSec, 2)}×`;
      console.log(
        `| ${row.run} | ${fmt(row.requests)} | ${fmt(row.reqPerSec)} | ${fmt(row.evalPerSec)} | ${fmt(row.p50, 1)} | ${fmt(row.p99, 1)} | ${fmt(row.reqPerSec / ceiling.reqPerSec, 2)}× | ${evalRatio} | ${fmt(row.serverCpuUs)} | ${fmt(row.redisCpuUs)} |`,
      );
    }
    const ratio = source.reqPerSec / ceiling.reqPerSec;
    const met = ratio >= 0.5 && source.p99 <= 30;
    console.log('');
    console.log(`target for (b): ≥ 0.50× of (a) with p99 ≤ 30 ms: ${met ? 'met' : 'missed'} (${fmt(ratio, 2)}×, p99 ${fmt(source.p99, 1)} ms)`);
    if (ceiling.serverCpuUs !== null && source.serverCpuUs !== null) {
      console.log(
        `CPU per request (all threads; independent of what else the machine runs): (a) ${fmt(ceiling.serverCpuUs)} µs, (b) ${fmt(source.serverCpuUs)} µs + ${fmt(source.redisCpuUs)} µs in Redis, (c) ${fmt(rows[2].serverCpuUs / BATCH_ITEMS, 1)} µs per evaluation`,
      );
    }
    const audited = verification.checked;
    const complete = verification.valid && audited >= evaluations.answered && audited <= evaluations.sent;
    console.log(
      `audit: ${fmt(audited)} SOURCE_EVALUATED records, chain ${verification.valid ? 'valid' : `INVALID at ${verification.firstInvalidSeq}: ${verification.reason}`}; ` +
        `${fmt(evaluations.answered)} evaluations answered, ${fmt(evaluations.sent)} sent (warm-ups included; requests cut off at the end of a run are evaluated and audited without being counted as answered)`,
    );
    if (!complete) throw new Error(`audit check failed: ${audited} records for ${evaluations.answered} answered and ${evaluations.sent} sent evaluations`);
  } finally {
    if (!stopped) await stopChild(service).catch((error) => console.error(String(error)));
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

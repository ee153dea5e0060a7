// Soak test: the built service as one `api` and one `worker` process (SQLite in a temp DATA_DIR, or
// MongoDB when MONGODB_URL is set; the local Redis under a unique key prefix; scheduled anomaly
// detection every 10 s), first driven closed-loop to find the maximum rate of the mixed load, then
// open-loop at half of it for SOAK_SECONDS (default 600) with workflows and batches running all the
// time. Every 10 s: RSS, heap and CPU of each process, p50/p99 and failures of the window, throughput,
// link lag (the processes' histograms, and `unlinked` from GET /api/v1/audit/verify polled every
// second). At the end: memory floors and p99 of the first against the last 2 minutes after warm-up,
// failures by code, workflows, detector runs, link lag, the audit chain; exit 1 when a verdict fails
// (soak-verdicts.mjs).
// bench/README.md, "Soak", describes the workload and the results.
// Run through `npm run soak` (SOAK_SECONDS=60 for a smoke run); not part of CI.
import { availableParallelism, cpus, loadavg } from 'node:os';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec } from '../../dist/src/auth/index.js';
import { lagQuantile, linkLagBuckets, pollUnlinked, scrapeLinkLag } from '../scale/link-lag.mjs';
import { TENANT } from '../support/bench-service.mjs';
import { fmt, printTable } from '../support/table.mjs';
import { createHttpClient } from './http-client.mjs';
import { createLatencyRecorder, summarise } from './latency-recorder.mjs';
import { runClosedLoop, startOpenLoop } from './load-drivers.mjs';
import { cpuSeconds, residentBytes } from './process-usage.mjs';
import { byLabel, scrape, sumOf } from './prometheus-text.mjs';
import { BATCH_KIND, bearerHeaders, deployLoanModule, requestKinds, SINGLE_ROTATION } from './request-mix.mjs';
import { countRedisKeys, DETECT_INTERVAL_SECONDS, prepareSoakService, removeSoakService, startSoakService, stopSoakService } from './soak-service.mjs';
import { COMPARED_SECONDS, judge, memoryAllowance } from './soak-verdicts.mjs';
import { createWorkflowTraffic, deployWorkflowModule, GIVE_UP_MS as WORKFLOW_GIVE_UP_MS } from './workflow-traffic.mjs';

const SAMPLE_SECONDS = 10;
const SOAK_SECONDS = soakSeconds();
// Warm-up: a minute (a quarter of a short smoke run), in whole samples.
const WARMUP_SECONDS = Math.max(SAMPLE_SECONDS, Math.min(60, Math.floor(SOAK_SECONDS / 4 / SAMPLE_SECONDS) * SAMPLE_SECONDS));
// p99 is compared over 2 minutes at each end of the steady state (a third of it in a short run).
const COMPARE_SECONDS = Math.max(SAMPLE_SECONDS, Math.min(COMPARED_SECONDS, Math.floor((SOAK_SECONDS - WARMUP_SECONDS) / 3 / SAMPLE_SECONDS) * SAMPLE_SECONDS));
const PROBE_WARMUP_SECONDS = 5;
const PROBE_SECONDS = 20;
const PROBE_CALLERS = 64;
const LOAD_SHARE = 0.5;
const WORKFLOWS_PER_SECOND = 3;
const BATCH_EVERY_SECONDS = 5;
// Far above the connections an open loop at half the maximum needs; queueing in the client shows as latency.
const MAX_SOCKETS = 256;
// Long enough for a workflow started in the last second to reach its end or be given up on.
const DRAIN_TIMEOUT_MS = 2 * WORKFLOW_GIVE_UP_MS;
// GET /api/v1/audit/verify is polled this often for the records stored but not yet linked (every 100 ms after the load stops).
const UNLINKED_POLL_MS = 1000;
const MB = 1024 * 1024;

/** SOAK_SECONDS, default 600; at least four samples, so that warm-up, start and end are apart. */
function soakSeconds() {
  const raw = process.env.SOAK_SECONDS;
  if (raw === undefined || raw === '') return 600;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 4 * SAMPLE_SECONDS || value % SAMPLE_SECONDS !== 0) {
    console.error(`SOAK_SECONDS must be a multiple of ${SAMPLE_SECONDS} seconds, at least ${4 * SAMPLE_SECONDS}; got \`${raw}\``);
    process.exit(2);
  }
  return value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => (bytes === null || bytes === undefined ? '-' : fmt(bytes / MB, 1));

async function memberAndAdminTokens(env) {
  const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(env.JWT_KEYS), 'JWT_KEYS'));
  const ttlSeconds = SOAK_SECONDS + 3600;
  return {
    member: await signer.sign({ subject: 'soak-client', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds }),
    admin: await signer.sign({ subject: 'soak-auditor', tenantId: TENANT, roles: ['ADMIN'], ttlSeconds }),
  };
}

/**
 * RSS and CPU from /proc, heap and counters from /metrics, of each service process and of this load
 * generator, with the machine's load average (other users of the machine show there).
 */
async function sampleProcesses(processes) {
  const sample = { load: loadavg()[0] };
  for (const [name, { running, metricsUrl }] of Object.entries(processes)) {
    const pid = running.child.pid;
    sample[name] = { rss: residentBytes(pid), cpu: cpuSeconds(pid), metrics: await scrape(metricsUrl) };
    sample[name].heapUsed = sample[name].metrics === null ? null : sumOf(sample[name].metrics, 'policy_engine_nodejs_heap_size_used_bytes');
  }
  const { user, system } = process.cpuUsage();
  sample.generator = { rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed, cpu: (user + system) / 1e6, metrics: null };
  return sample;
}

/** CPU share of one core a process used between two samples, in percent. */
const cpuPercent = (from, to, name) => (from[name].cpu === null || to[name].cpu === null ? null : ((to[name].cpu - from[name].cpu) / (to.t - from.t)) * 100);

const counter = (sample, processName, name, where) => (sample[processName].metrics === null ? null : sumOf(sample[processName].metrics, name, where));

/** Least-squares slope of RSS over the steady state, MB per minute. */
function slopePerMinute(points) {
  const known = points.filter((p) => p.value !== null);
  if (known.length < 2) return null;
  const meanT = known.reduce((s, p) => s + p.t, 0) / known.length;
  const meanV = known.reduce((s, p) => s + p.value, 0) / known.length;
  const num = known.reduce((s, p) => s + (p.t - meanT) * (p.value - meanV), 0);
  const den = known.reduce((s, p) => s + (p.t - meanT) ** 2, 0);
  return ((num / den) * 60) / MB;
}

async function main() {
  const prepared = await prepareSoakService({ tokenLifetimeSeconds: SOAK_SECONDS + 3600 });
  let processes = null;
  let stopped = false;
  let client = null;
  let poller = null;
  try {
    processes = await startSoakService(prepared);
    client = createHttpClient(prepared.base, { maxSockets: MAX_SOCKETS });
    const tokens = await memberAndAdminTokens(prepared.env.api);
    await deployLoanModule(client, prepared.secret);
    await deployWorkflowModule(client, prepared.secret);
    const kinds = requestKinds({ secret: prepared.secret, token: tokens.member });

    console.log(`Soak: ${SOAK_SECONDS} s at ${LOAD_SHARE * 100} % of the measured maximum rate, mixed load, scheduled anomaly detection and workflows running`);
    console.log(`  machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; load generator in this process`);
    console.log(`  service: dist/src/main.js as one \`api\` and one \`worker\` process; ${prepared.storeName}; Redis prefix ${prepared.prefix}; ANOMALY_DETECT_INTERVAL_SECONDS=${DETECT_INTERVAL_SECONDS}; LOG_LEVEL=warn`);
    console.log(`  single requests in rotation: ${[...new Set(SINGLE_ROTATION)].map((k) => `${k} ${SINGLE_ROTATION.filter((r) => r === k).length}/${SINGLE_ROTATION.length}`).join(', ')}`);
    console.log(`  besides: a ${BATCH_KIND} every ${BATCH_EVERY_SECONDS} s; ${WORKFLOWS_PER_SECOND} workflows/s started, each read until it awaits its signal, signalled, read until it ends`);

    // Every answer is checked before the clock starts: a kind that fails here would fail all along.
    for (const [name, kind] of Object.entries(kinds)) {
      const request = kind.build(0);
      const answer = await client.request(request.method, request.path, request.headers, request.body);
      const failure = kind.failure(answer);
      if (failure !== null) throw new Error(`${name} fails before the soak: ${failure} ${JSON.stringify(answer.body).slice(0, 500)}`);
    }
    const checkEvaluations = Object.values(kinds).reduce((n, kind) => n + kind.evaluations, 0);
    poller = pollUnlinked(async () => (await client.request('GET', '/api/v1/audit/verify', bearerHeaders(tokens.admin))).body, UNLINKED_POLL_MS);
    const lagOf = (sample) => linkLagBuckets([sample.api.metrics, sample.worker.metrics]);

    const recorder = createLatencyRecorder();
    let outstanding = 0;
    const send = async (kind, request, scheduledAt, failure, evaluations) => {
      outstanding++;
      const answer = await client.request(request.method, request.path, request.headers, request.body);
      outstanding--;
      recorder.record(kind, performance.now() - scheduledAt, failure(answer), evaluations);
      return answer;
    };
    const sendKind = (name, i, scheduledAt) => send(name, kinds[name].build(i), scheduledAt, kinds[name].failure, kinds[name].evaluations);
    const workflows = createWorkflowTraffic({ send, secret: prepared.secret, token: tokens.member });

    // Batches and workflows at their own fixed rates, from the probe to the end.
    recorder.startPhase('probe warm-up');
    const background = [startOpenLoop(1 / BATCH_EVERY_SECONDS, (i, at) => sendKind(BATCH_KIND, i, at)), startOpenLoop(WORKFLOWS_PER_SECOND, (i, at) => workflows.start(i, at))];

    // Phase 1: the maximum rate of the single requests, closed loop.
    const single = (i) => sendKind(SINGLE_ROTATION[i % SINGLE_ROTATION.length], i, performance.now());
    await runClosedLoop(PROBE_CALLERS, PROBE_WARMUP_SECONDS, single);
    recorder.startPhase('probe');
    const probeLagFrom = await scrapeLinkLag(Object.values(processes));
    poller.window();
    const probeStarted = performance.now();
    await runClosedLoop(PROBE_CALLERS, PROBE_SECONDS, single);
    const probeSeconds = (performance.now() - probeStarted) / 1000;
    const probeLagTo = await scrapeLinkLag(Object.values(processes));
    const probeLink = { p50: lagQuantile(probeLagFrom, probeLagTo, 0.5), p99: lagQuantile(probeLagFrom, probeLagTo, 0.99), unlinked: poller.window() };
    const probe = recorder.phaseTotals('probe');
    const probeSingles = summarise([...new Set(SINGLE_ROTATION)].map((k) => probe.kinds.get(k)).filter(Boolean));
    const maxRate = probeSingles.answered / probeSeconds;
    const rate = LOAD_SHARE * maxRate;
    console.log(
      `\nphase 1, maximum rate: ${PROBE_CALLERS} callers closed-loop, ${PROBE_SECONDS} s after ${PROBE_WARMUP_SECONDS} s of warm-up: ` +
        `${fmt(maxRate)} single requests/s answered (p50 ${fmt(probeSingles.p50, 1)} ms, p99 ${fmt(probeSingles.p99, 1)} ms, ${probeSingles.failed} failed); ` +
        `link lag ${linkLagText(probeLink)}`,
    );
    console.log(`phase 2, soak: open loop at ${fmt(rate)} single requests/s for ${SOAK_SECONDS} s; warm-up ${WARMUP_SECONDS} s; a line every ${SAMPLE_SECONDS} s\n`);

    // Phase 2: the soak.
    recorder.startPhase('steady');
    const samples = [];
    const soakStarted = performance.now();
    samples.push({ t: 0, ...(await sampleProcesses(processes)), unlinked: poller.window() });
    let generatorLagMs = 0;
    const singles = startOpenLoop(rate, (i, at) => {
      generatorLagMs = Math.max(generatorLagMs, performance.now() - at);
      sendKind(SINGLE_ROTATION[i % SINGLE_ROTATION.length], i, at);
    });
    const detectorRuns = (sample) => counter(sample, 'worker', 'policy_engine_queue_jobs_finished_total', { queue: 'anomaly-detect', outcome: 'completed' });
    const line = (t, window, sample) => {
      const previous = samples[samples.length - 2];
      const throughput = window.requests / SAMPLE_SECONDS;
      const failures = [...window.failures].map(([code, n]) => `${code}×${n}`).join(' ');
      const waiting = counter(sample, 'api', 'policy_engine_queue_jobs', { queue: 'policy-evaluate', state: 'waiting' });
      // Workflow time limits wait as delayed jobs: their number levels off once the first ones fire.
      const timeLimits = counter(sample, 'api', 'policy_engine_queue_jobs', { queue: 'workflow-run', state: 'delayed' });
      const cpu = (name) => fmt(cpuPercent(previous, sample, name));
      const lag = lagQuantile(lagOf(previous), lagOf(sample), 0.99);
      console.log(
        `${String(t).padStart(4)} s${t <= WARMUP_SECONDS ? ' (warm-up)' : '          '}  ${fmt(throughput).padStart(5)} req/s  ` +
          `p50 ${fmt(window.p50, 1).padStart(5)}  p99 ${fmt(window.p99, 1).padStart(6)} ms  failed ${window.failed}${failures ? ` (${failures})` : ''}  | ` +
          `api RSS ${mb(sample.api.rss)} MB heap ${mb(sample.api.heapUsed)} CPU ${cpu('api')} %  worker RSS ${mb(sample.worker.rss)} MB heap ${mb(sample.worker.heapUsed)} CPU ${cpu('worker')} %  | ` +
          `workflows ${workflows.counts.started} started ${workflows.counts.completed} completed  | detector runs ${detectorRuns(sample) ?? '-'}  | ` +
          `evaluate jobs waiting ${waiting ?? '-'}, workflow time limits pending ${timeLimits ?? '-'}  | ` +
          `link lag p99 ${lagText(lag)} ms, unlinked ≤ ${fmt(sample.unlinked.maxUnlinked)} (oldest ≤ ${fmt(sample.unlinked.maxOldestAgeMs)} ms)  | generator lag ≤ ${fmt(generatorLagMs)} ms  | machine load ${fmt(sample.load, 1)}`,
      );
      generatorLagMs = 0;
    };
    for (let t = SAMPLE_SECONDS; t <= SOAK_SECONDS; t += SAMPLE_SECONDS) {
      await sleep(soakStarted + t * 1000 - performance.now());
      const sample = { t, ...(await sampleProcesses(processes)), unlinked: poller.window() };
      samples.push(sample);
      if (t < SOAK_SECONDS) {
        line(t, summarise(recorder.closeWindow(t)), sample);
        continue;
      }
      // The end: requests still in flight belong to the last window; workflows under way are finished.
      singles.stop();
      for (const loop of background) loop.stop();
      const drainDeadline = performance.now() + DRAIN_TIMEOUT_MS;
      while ((outstanding > 0 || workflows.inFlight() > 0) && performance.now() < drainDeadline) await sleep(50);
      line(t, summarise(recorder.closeWindow(t)), sample);
    }
    const undrained = { requests: outstanding, workflows: workflows.inFlight() };
    // Every answer's record is stored before it left: how long until the last of them is linked.
    const linkDrainMs = await poller.drain(100, DRAIN_TIMEOUT_MS);
    await poller.stop();

    // Counters after the drain; then the audit chain, read through the API as an ADMIN.
    const final = await sampleProcesses(processes);
    const verifyStarted = performance.now();
    const verifyResponse = await fetch(`${prepared.base}/api/v1/audit/verify`, { headers: { authorization: `Bearer ${tokens.admin}`, 'x-tenant-id': TENANT } });
    const verification = await verifyResponse.json().catch(() => ({ valid: false, reason: 'the answer was not JSON' }));
    const verifySeconds = (performance.now() - verifyStarted) / 1000;
    client.close();
    let stopFailure = null;
    try {
      await stopSoakService(processes);
    } catch (error) {
      stopFailure = error.message;
    }
    stopped = true;
    const redisKeys = await countRedisKeys(prepared);

    report({ recorder, samples, final, workflows, verification, verifySeconds, verifyStatus: verifyResponse.status, processes, stopFailure, redisKeys, undrained, maxRate, rate, checkEvaluations, probeLink, linkDrainMs, lagOf });
  } finally {
    await poller?.stop();
    client?.close();
    if (processes !== null && !stopped) await stopSoakService(processes).catch((error) => console.error(String(error)));
    await removeSoakService(prepared);
  }
}

function report({ recorder, samples, final, workflows, verification, verifySeconds, verifyStatus, processes, stopFailure, redisKeys, undrained, maxRate, rate, checkEvaluations, probeLink, linkDrainMs, lagOf }) {
  const steadyFrom = WARMUP_SECONDS;
  const steadyTo = SOAK_SECONDS;

  // Memory: each process's floor (its lowest sample) over the first and over the last compared
  // stretch. The API's heap gathers 100 MB of garbage between major collections, so single samples
  // swing by that much; the floor is what survives collection, and where a leak accumulates.
  const sampleAt = (t) => samples.find((sample) => sample.t === t);
  const within = (from, to) => samples.filter((sample) => sample.t >= from && sample.t <= to);
  const firstStretch = within(steadyFrom, steadyFrom + COMPARE_SECONDS);
  const lastStretch = within(steadyTo - COMPARE_SECONDS, steadyTo);
  const steadySamples = within(steadyFrom, steadyTo);
  const floorOf = (stretch, name, key) => {
    const values = stretch.map((sample) => sample[name][key]).filter((value) => value !== null && value !== undefined);
    return values.length === 0 ? null : Math.min(...values);
  };
  const signed = (bytes) => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;
  const memoryRows = [];
  const memory = [];
  for (const name of ['api', 'worker', 'generator']) {
    const start = floorOf(firstStretch, name, 'rss');
    const end = floorOf(lastStretch, name, 'rss');
    const peak = Math.max(...steadySamples.map((sample) => sample[name].rss ?? 0));
    const slope = slopePerMinute(steadySamples.map((sample) => ({ t: sample.t, value: sample[name].rss })));
    memoryRows.push([
      name === 'generator' ? 'load generator (this process; not judged)' : name,
      mb(samples[0][name].rss),
      mb(sampleAt(steadyFrom)[name].rss),
      mb(sampleAt(steadyTo)[name].rss),
      mb(start),
      mb(end),
      signed(end - start),
      name === 'generator' ? '-' : `+${mb(memoryAllowance(start))}`,
      mb(peak),
      slope === null ? '-' : `${slope >= 0 ? '+' : ''}${fmt(slope, 2)}`,
      mb(floorOf(firstStretch, name, 'heapUsed')),
      mb(floorOf(lastStretch, name, 'heapUsed')),
    ]);
    if (name !== 'generator') memory.push({ process: name, start, end });
  }

  const firstWindows = recorder.windowsBetween('steady', steadyFrom, steadyFrom + COMPARE_SECONDS);
  const lastWindows = recorder.windowsBetween('steady', steadyTo - COMPARE_SECONDS, steadyTo);
  const first = summarise(firstWindows);
  const last = summarise(lastWindows);
  const steadyWindows = recorder.windowsBetween('steady', steadyFrom, steadyTo);
  const steady = summarise(steadyWindows);
  const steadySeconds = steadyTo - steadyFrom;
  // Beside each latency figure: the CPU the two service processes spent per request, and the
  // machine's load. On a shared machine p99 follows the neighbours' load, and CPU per request falls
  // while they take the cores (requests wait longer and share bigger micro-batches): compare
  // stretches of similar load.
  const cpuPerRequestUs = (from, to, requests) => {
    const [a, b] = [sampleAt(from), sampleAt(to)];
    if (a === undefined || b === undefined || ['api', 'worker'].some((p) => a[p].cpu === null || b[p].cpu === null)) return null;
    return (['api', 'worker'].reduce((sum, p) => sum + b[p].cpu - a[p].cpu, 0) * 1e6) / requests;
  };
  const meanLoad = (from, to) => {
    const inside = samples.filter((sample) => sample.t > from && sample.t <= to);
    return inside.reduce((sum, sample) => sum + sample.load, 0) / inside.length;
  };
  const latencyRow = (label, counts, from, to) => [
    label,
    fmt(counts.requests),
    fmt(counts.requests / (to - from)),
    fmt(counts.p50, 1),
    fmt(counts.p99, 1),
    fmt(counts.max, 1),
    fmt(counts.failed),
    fmt(cpuPerRequestUs(from, to, counts.requests)),
    fmt(meanLoad(from, to), 1),
  ];

  // Failures: requests of every phase, failed jobs, error log lines, an unclean stop.
  const failures = new Map();
  for (const phase of ['probe warm-up', 'probe', 'steady']) {
    for (const [code, n] of summarise(recorder.phaseTotals(phase).all).failures) failures.set(code, (failures.get(code) ?? 0) + n);
  }
  for (const name of ['api', 'worker']) {
    for (const [queue, n] of byLabel((final[name].metrics ?? []).filter((s) => s.labels.outcome === 'failed'), 'policy_engine_queue_jobs_finished_total', 'queue')) {
      if (n > 0) failures.set(`failed ${queue} jobs (${name})`, n);
    }
    if (processes[name].logs.error > 0) failures.set(`error log lines (${name})`, processes[name].logs.error);
  }
  if (stopFailure !== null) failures.set('graceful stop failed', 1);
  if (undrained.requests > 0) failures.set('requests unanswered after the drain', undrained.requests);
  if (undrained.workflows > 0) failures.set('workflows still under way after the drain', undrained.workflows);
  if (verifyStatus !== 200) failures.set(`audit verify answered ${verifyStatus}`, 1);
  const failureTotal = [...failures.values()].reduce((a, b) => a + b, 0);

  // Workflows, detector, audit: counters of both processes after the drain.
  const bothProcesses = (name, where) => ['api', 'worker'].reduce((sum, p) => sum + (counter(final, p, name, where) ?? 0), 0);
  const detectorAtStart = counter(samples[0], 'worker', 'policy_engine_queue_jobs_finished_total', { queue: 'anomaly-detect', outcome: 'completed' }) ?? 0;
  const detector = {
    completed: (counter(final, 'worker', 'policy_engine_queue_jobs_finished_total', { queue: 'anomaly-detect', outcome: 'completed' }) ?? 0) - detectorAtStart,
    failed: counter(final, 'worker', 'policy_engine_queue_jobs_finished_total', { queue: 'anomaly-detect', outcome: 'failed' }) ?? 0,
    expected: Math.floor(SOAK_SECONDS / DETECT_INTERVAL_SECONDS),
    intervalSeconds: DETECT_INTERVAL_SECONDS,
    seconds: counter(final, 'worker', 'policy_engine_queue_job_processing_seconds_sum', { queue: 'anomaly-detect' }),
    runs: counter(final, 'worker', 'policy_engine_queue_job_processing_seconds_count', { queue: 'anomaly-detect' }),
    anomalies: bothProcesses('policy_engine_anomalies_total', { status: 'OPEN' }),
  };
  const recordsByType = new Map();
  for (const name of ['api', 'worker']) {
    for (const [type, n] of byLabel(final[name].metrics ?? [], 'policy_engine_audit_records_total', 'event_type')) recordsByType.set(type, (recordsByType.get(type) ?? 0) + n);
  }
  const workflowStepEvaluations = bothProcesses('policy_engine_workflow_events_total', { event_type: 'POLICY_EVALUATED' });
  const clientEvaluations = checkEvaluations + ['probe warm-up', 'probe', 'steady'].reduce((n, phase) => n + recorder.phaseTotals(phase).all.evaluations, 0);
  const audit = {
    valid: verification.valid === true,
    records: verification.checked,
    evaluationRecords: (recordsByType.get('POLICY_EVALUATED') ?? 0) + (recordsByType.get('SOURCE_EVALUATED') ?? 0),
    answeredEvaluations: clientEvaluations + workflowStepEvaluations,
  };

  const firstLabel = `${steadyFrom}–${steadyFrom + COMPARE_SECONDS} s`;
  const lastLabel = `${steadyTo - COMPARE_SECONDS}–${steadyTo} s`;
  console.log('\nMemory (MB; RSS from /proc/<pid>/status, heap used of the main thread from /metrics; floor = lowest sample of the stretch):');
  printTable(
    [
      'process',
      'RSS at 0 s',
      `RSS at warm-up end (${steadyFrom} s)`,
      `RSS at end (${steadyTo} s)`,
      `RSS floor ${firstLabel}`,
      `RSS floor ${lastLabel}`,
      'floor change',
      'allowed',
      'peak RSS',
      'RSS trend MB/min (steady state)',
      `heap floor ${firstLabel}`,
      `heap floor ${lastLabel}`,
    ],
    memoryRows,
  );

  console.log(`\nLatency (ms, from the scheduled send time; requests of every kind):`);
  printTable(
    ['window', 'requests', 'requests/s', 'p50', 'p99', 'max', 'failed', 'service CPU µs/request (api + worker)', 'machine load (1-min average)'],
    [
      latencyRow(`first ${COMPARE_SECONDS} s after warm-up`, first, steadyFrom, steadyFrom + COMPARE_SECONDS),
      latencyRow(`last ${COMPARE_SECONDS} s`, last, steadyTo - COMPARE_SECONDS, steadyTo),
      latencyRow(`steady state (${steadyFrom}–${steadyTo} s)`, steady, steadyFrom, steadyTo),
    ],
  );
  console.log('\nBy kind over the whole soak (warm-up included):');
  printTable(
    ['kind', 'requests', 'p50', 'p99', 'failed'],
    [...recorder.phaseTotals('steady').kinds].map(([kind, counts]) => {
      const s = summarise(counts);
      return [kind, fmt(s.requests), fmt(s.p50, 1), fmt(s.p99, 1), fmt(s.failed)];
    }),
  );

  console.log(
    `\nThroughput: maximum ${fmt(maxRate)} single requests/s (phase 1), soak target ${fmt(rate)}/s; steady state ${fmt(steady.answered / steadySeconds)} requests/s answered, ` +
      `${fmt(steady.evaluations / steadySeconds)} evaluations/s answered to the client (batch items included) + workflow steps`,
  );
  console.log(
    `Workflows: ${workflows.counts.started} started, ${workflows.counts.completed} completed` +
      `${workflows.counts.notStarted > 0 ? `, ${workflows.counts.notStarted} not started` : ''}` +
      `${[...workflows.counts.endedOtherwise].map(([how, n]) => `, ${n} ${how}`).join('')}; ${fmt(workflowStepEvaluations)} step evaluations; ` +
      `events by type: ${[...byLabelBoth(final, 'policy_engine_workflow_events_total', 'event_type')].map(([t, n]) => `${t} ${n}`).join(', ')}`,
  );
  console.log(
    `Anomaly detector: ${detector.completed} scheduled runs completed during the soak (every ${DETECT_INTERVAL_SECONDS} s), ${detector.failed} failed, ` +
      `${detector.runs ? `mean ${fmt((detector.seconds / detector.runs) * 1000, 1)} ms per run` : ''}; ${detector.anomalies} anomalies opened`,
  );
  console.log(
    `Audit: GET /api/v1/audit/verify (${fmt(verifySeconds, 1)} s): ${JSON.stringify(verification)}; records stored by type: ` +
      `${[...recordsByType].map(([t, n]) => `${t} ${fmt(n)}`).join(', ')}; evaluations answered: ${fmt(clientEvaluations)} to the client + ${fmt(workflowStepEvaluations)} workflow steps`,
  );
  const steadyLag = (q) => lagQuantile(lagOf(sampleAt(steadyFrom)), lagOf(final), q);
  const steadyUnlinked = samples.filter((sample) => sample.t > steadyFrom);
  console.log(
    `Link lag (stored → linked; the processes' histograms, quantiles interpolated within buckets): phase 1 ${linkLagText(probeLink)}; ` +
      `steady state p50 ${lagText(steadyLag(0.5))} ms, p99 ${lagText(steadyLag(0.99))} ms over ${fmt(steadyLag(0.5).count)} records, ` +
      `at most ${fmt(Math.max(...steadyUnlinked.map((s) => s.unlinked.maxUnlinked)))} unlinked (oldest ${fmt(Math.max(...steadyUnlinked.map((s) => s.unlinked.maxOldestAgeMs)))} ms) in the verify polls; ` +
      `unlinked 0 ${linkDrainMs === null ? `not within ${fmt(DRAIN_TIMEOUT_MS)} ms` : `${fmt(linkDrainMs)} ms`} after the last answer`,
  );
  console.log(`Redis keys of this run after the stop: ${[...redisKeys].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${fmt(n)}`).join(', ') || 'none'}`);
  for (const name of ['api', 'worker']) {
    const logs = processes[name].logs;
    console.log(`Log lines of ${name}: ${logs.warn} warn, ${logs.error} error${logs.first.length > 0 ? `; first: ${logs.first.join(' | ')}` : ''}`);
  }
  console.log(`Failures by code (all phases): ${failureTotal === 0 ? 'none' : [...failures].map(([code, n]) => `${code} ${fmt(n)}`).join(', ')}`);
  if (stopFailure !== null) console.log(`Stop: ${stopFailure}`);

  const verdicts = judge({
    memory,
    // Requests between the middles of the two stretches whose floors are compared.
    requests: summarise(recorder.windowsBetween('steady', steadyFrom + COMPARE_SECONDS / 2, steadyTo - COMPARE_SECONDS / 2)).requests,
    p99: { first: first.p99, last: last.p99 },
    errors: { total: failureTotal, summary: [...failures].map(([code, n]) => `${code} ${n}`).join(', ') },
    workflows: workflows.counts,
    detector,
    audit,
  });
  console.log('\nVerdicts:');
  for (const v of verdicts) console.log(`  ${v.passed ? 'PASS' : 'FAIL'}  ${v.name}: ${v.detail}`);
  if (SOAK_SECONDS < 600) console.log(`  (SOAK_SECONDS=${SOAK_SECONDS}: a smoke run; the verdicts mean something only for a full soak)`);
  if (verdicts.some((v) => !v.passed)) process.exitCode = 1;
}

function byLabelBoth(final, name, label) {
  const totals = new Map();
  for (const p of ['api', 'worker']) for (const [k, n] of byLabel(final[p].metrics ?? [], name, label)) totals.set(k, (totals.get(k) ?? 0) + n);
  return totals;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});

/** A link lag quantile in ms; `> bound` when it fell past the histogram's largest finite bucket. */
function lagText({ ms, beyond }) {
  return ms === null ? '-' : `${beyond ? '> ' : ''}${fmt(ms, 1)}`;
}

function linkLagText({ p50, p99, unlinked }) {
  return `p50 ${lagText(p50)} ms, p99 ${lagText(p99)} ms over ${fmt(p50.count)} records, at most ${fmt(unlinked.maxUnlinked)} unlinked (oldest ${fmt(unlinked.maxOldestAgeMs)} ms)`;
}

// Anomaly detection and triage as the service runs them, on one injected clock: the policy
// registry harness (real HTTP, Redis, BullMQ evaluation worker and threads, a real store) plus the
// anomaly routes, the `anomaly-detect` job scheduler and the `anomaly-verify` worker on real Redis.
// Time moves only when a test moves the clock: rollups, activations, detections and idempotency
// expiry all read it. Threads load dist/workers/evaluation-thread.js (`npx tsc -p tsconfig.json`).
import { randomUUID } from 'node:crypto';
import { Job, Queue, QueueEvents } from 'bullmq';
import {
  createAnomalyDetector,
  createAnomalyJobQueues,
  createAnomalySettings,
  createAnomalyTriage,
  createAnomalyVerifier,
  DEFAULT_DETECTION_SETTINGS,
  startAnomalyWorkers,
  type AnomalyJobQueues,
  type AnomalyWorkers,
  type DetectionBudget,
  type DetectionSettings,
  type DetectionRound,
  type DetectionRun,
} from '../../../src/anomalies/index.js';
import { createAnomalyRoutes } from '../../../src/api/index.js';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../../src/jobs/index.js';
import { loadBuiltinLibrary } from '../../../src/policies/index.js';
import type { Store } from '../../../src/store/index.js';
import { createBearerCaller, REDIS_URL, removeRedisPrefix, type BearerCall } from '../../support/index.js';

export type { HttpAnswer } from '../../support/index.js';
import { startPoliciesHarness, type PoliciesHarness, type TenantInfo } from '../policies-support/policies-harness.js';

export type { TenantInfo };

/** How often the scheduled detection runs in these suites (real time; the clock it reads is injected). */
const DETECT_EVERY_MS = 200;

export interface TestClock {
  now(): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function createTestClock(startIso: string): TestClock {
  let current = Date.parse(startIso);
  return {
    now: () => new Date(current),
    set: (iso) => {
      current = Date.parse(iso);
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface AnomaliesHarness {
  policies: PoliciesHarness;
  /** The detect and verify workers (a suite may pause verification to see VERIFYING). */
  workers: AnomalyWorkers;
  clock: TestClock;
  store: Store;
  /** Any REST call with a bearer token of the tenant and role (a string body is sent as it is); never throws on an HTTP status. */
  call: BearerCall;
  /** Deploys a module source as ADMIN of the tenant (an active deploy); the new version number. */
  deploy(tenant: TenantInfo, source: string): Promise<number>;
  /** Evaluates a deployed policy (pinned to `version` when given); the `error` of the answer or null. */
  evaluate(tenant: TenantInfo, policyModule: string, policyFunction: string, context: Record<string, unknown>, version?: number): Promise<string | null>;
  /**
   * What a scheduled round that started after this call did: the second round to complete from
   * now on (the first may have started before), once each of its tenants' jobs has finished.
   */
  nextScheduledDetection(): Promise<DetectionRun>;
  /**
   * Queues a round as the schedule does (a job without a tenant) and answers what it did once each
   * of its tenants' jobs has finished: for suites that start rounds themselves (a long `detectEveryMs`).
   */
  runRound(): Promise<DetectionRun>;
  /** Polls the detail until it leaves VERIFYING (the verification job runs on a worker). */
  settledDetail(tenant: TenantInfo, id: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startAnomaliesHarness(options: {
  openStore?: () => Promise<Store>;
  startIso: string;
  /** The detector's per-round budget (default: the service's default). */
  budget?: DetectionBudget;
  /** How often the scheduled round runs, in real milliseconds (default 200). */
  detectEveryMs?: number;
  /** The service-wide detection settings (default: the service's defaults). */
  detectionDefaults?: DetectionSettings;
}): Promise<AnomaliesHarness> {
  const defaults = options.detectionDefaults ?? DEFAULT_DETECTION_SETTINGS;
  const clock = createTestClock(options.startIso);
  const prefix = `test-anomalies-${randomUUID()}`;
  const queues: AnomalyJobQueues = createAnomalyJobQueues({ connection: REDIS_URL, prefix });
  const policies = await startPoliciesHarness({
    ...(options.openStore ? { openStore: options.openStore } : {}),
    now: clock.now,
    extraRoutes: ({ stack, store }) => [
      createAnomalyRoutes({
        triage: createAnomalyTriage({
          anomalies: store.anomalies,
          audit: stack.auditTrail.recorder,
          enqueueVerification: (request) => queues.enqueueVerification(request),
          now: clock.now,
        }),
        settings: createAnomalySettings({ repository: store.anomalySettings, defaults, audit: stack.auditTrail.recorder, now: clock.now }),
      }),
    ],
  });
  const store = policies.store;
  const builtinModules = new Set((await loadBuiltinLibrary()).map((module) => module.moduleName));
  const settings = createAnomalySettings({ repository: store.anomalySettings, defaults, audit: policies.stack.auditTrail.recorder });
  const deps = { store, settings, audit: policies.stack.auditTrail.recorder, builtinModules, now: clock.now };
  const workers: AnomalyWorkers = await startAnomalyWorkers({
    connection: REDIS_URL,
    prefix,
    detector: createAnomalyDetector({ ...deps, ...(options.budget ? { budget: options.budget } : {}) }),
    verifier: createAnomalyVerifier(deps),
    detectEveryMs: options.detectEveryMs ?? DETECT_EVERY_MS,
  });
  const eventsConnection = createRedisClient(REDIS_URL, 'test-anomaly-detect-events');
  const events = new QueueEvents(QUEUE_NAMES.anomalyDetect, { connection: eventsConnection, prefix: queuePrefix(QUEUE_NAMES.anomalyDetect, prefix) });
  const detectQueue = new Queue(QUEUE_NAMES.anomalyDetect, { connection: eventsConnection, prefix: queuePrefix(QUEUE_NAMES.anomalyDetect, prefix) });
  await events.waitUntilReady();

  const asRound = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as DetectionRound;

  /**
   * Each tenant's job of the round, finished, that started processing at `since` or later: a job
   * of an earlier round standing for this one (deduplicated) may have started before, and then
   * the tenant's job of a later round of `rounds` is waited for instead. Failed jobs are listed
   * among the failures.
   */
  async function roundRun(first: DetectionRound, since: number, rounds?: () => Promise<DetectionRound>): Promise<DetectionRun> {
    const run: DetectionRun = { at: first.at, tenants: [], failures: [], durationMs: 0 };
    let pending = first.jobs.map((job) => job.tenantId);
    for (let round = first; ; round = await rounds!()) {
      const left: string[] = [];
      for (const { tenantId, jobId } of round.jobs.filter((job) => pending.includes(job.tenantId))) {
        try {
          const job = await Job.fromId(detectQueue, jobId);
          if (job === undefined) throw new Error(`job ${jobId} is gone`);
          const result = (await job.waitUntilFinished(events, 60_000)) as DetectionRun | string;
          if (rounds !== undefined && ((await Job.fromId(detectQueue, jobId))?.processedOn ?? 0) < since) {
            left.push(tenantId);
            continue;
          }
          run.tenants.push(...(typeof result === 'string' ? (JSON.parse(result) as DetectionRun) : result).tenants);
        } catch (error) {
          run.failures.push({ tenantId, error: (error as Error).message });
        }
      }
      pending = left;
      if (pending.length === 0) break;
    }
    run.durationMs = Date.now() - Date.parse(first.at);
    return run;
  }

  const call = createBearerCaller(policies.baseUrl, policies.keyRing);

  return {
    policies,
    workers,
    clock,
    store,
    call,
    async deploy(tenant, source) {
      const answer = await call<{ version: number }>(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source });
      if (answer.status !== 201) throw new Error(`deploy answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.version;
    },
    async evaluate(tenant, policyModule, policyFunction, context, version) {
      const answer = await call<{ error: string | null }>(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate', {
        policyModule,
        policyFunction,
        context,
        ...(version !== undefined ? { version } : {}),
      });
      if (answer.status !== 200) throw new Error(`evaluate answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.error;
    },
    async nextScheduledDetection() {
      const since = Date.now();
      // Rounds completed from now on, the first skipped (it may have started before this call).
      const completed: DetectionRound[] = [];
      const waiting: Array<(round: DetectionRound) => void> = [];
      let seen = 0;
      const onCompleted = ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => {
        if (!jobId.startsWith('repeat:') || (seen += 1) < 2) return;
        const next = waiting.shift();
        if (next) next(asRound(returnvalue));
        else completed.push(asRound(returnvalue));
      };
      events.on('completed', onCompleted);
      const nextRound = () =>
        completed.length > 0
          ? Promise.resolve(completed.shift()!)
          : new Promise<DetectionRound>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('no scheduled detection completed within 20 s')), 20_000);
              waiting.push((round) => {
                clearTimeout(timer);
                resolve(round);
              });
            });
      try {
        return await roundRun(await nextRound(), since, nextRound);
      } finally {
        events.off('completed', onCompleted);
      }
    },
    async runRound() {
      const job = await detectQueue.add('detect-all', {}, { jobId: `manual-round-${randomUUID()}` });
      return roundRun(asRound(await job.waitUntilFinished(events, 60_000)), Date.now());
    },
    async settledDetail(tenant, id) {
      for (let attempt = 0; attempt < 400; attempt += 1) {
        const answer = await call<Record<string, unknown>>(tenant, 'ADMIN', 'GET', `/api/v1/audit/anomalies/${id}`);
        if (answer.status !== 200) throw new Error(`detail answered ${answer.status}`);
        if (answer.body.status !== 'VERIFYING') return answer.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`anomaly ${id} stayed VERIFYING`);
    },
    async close() {
      await detectQueue.close();
      await events.close();
      await eventsConnection.quit();
      await workers.close();
      await queues.close();
      await policies.close();
      await removeRedisPrefix(prefix);
    },
  };
}

/**
 * Composition root: the only module that knows every concrete part. A process runs one role —
 * `api`, `worker`, or `all` (both, the default of `npm start`) — built from small start functions
 * that share one runtime (config, logger, store, Redis) and stop in reverse order.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import {
  anomalyAuditOutbox,
  createAnomalyDetector,
  createAnomalySettings,
  createAnomalyTriage,
  createAnomalyVerifier,
  type AnomalySettings,
} from './anomalies/index.js';
import {
  answerUnparsableRequests,
  createAnomalyRoutes,
  createApp,
  createLoginThrottle,
  createQueueBoard,
  createEvaluationRoutes,
  createPolicyRoutes,
  createSigningSecretCache,
  createTenantRateLimiter,
  createWorkflowRoutes,
} from './api/index.js';
import {
  createAuditChainWriter,
  createAuditOutboxFollower,
  createChainPageThreads,
  createChainVerifier,
  newAuditOutboxLease,
  type AuditChainWriter,
} from './audit/index.js';
import { createNonceGuard, createTokenVerifier, loadJwtKeyRing, type JwtKeyRing } from './auth/index.js';
import {
  ConfigError,
  detectionDefaults,
  loadConfig,
  PROCESS_ROLES,
  redactUrl,
  serviceVersion,
  storeLocation,
  type Config,
  type ProcessRole,
} from './config/index.js';
import { createEnginePool, EngineThreadFileMissingError, type EnginePool } from './engine/index.js';
import { createEvaluationService, type EvaluationService } from './evaluation/index.js';
import { createGraphqlRoute } from './graphql/index.js';
import {
  createAnomalyJobQueues,
  createEvaluationDispatcher,
  createRedisClient,
  openServiceQueues,
  createRedisBatchTransport,
  createWorkflowJobQueue,
  startAnomalyWorkers,
  startWorkflowResumeSchedule,
  startWorkflowWorker,
  startEvaluationWorker,
} from './jobs/index.js';
import { createLogger, type Logger } from './logging/index.js';
import {
  createServiceMetrics,
  observedAuditWriter,
  observedWorkflowRepository,
  observeQueueDepths,
  observeWorker,
  startMetricsServer,
  type ServiceMetrics,
} from './metrics/index.js';
import {
  BuiltinLibraryError,
  createBuiltinVersions,
  createDomainDecider,
  createPolicyCatalog,
  createPolicyLookup,
  createRedisActivationNotices,
  createVersionResolver,
  type ActivationNotices,
  loadBuiltinLibrary,
  registryAuditOutbox,
  type BuiltinModule,
} from './policies/index.js';
import { openStore, type Store } from './store/index.js';
import { createWorkflowDefinitions, createWorkflowResumer, createWorkflowRunner, createWorkflowService, evaluateStep } from './workflows/index.js';

/** A start-up failure the operator can fix; printed as one line, exit code 1. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** What every role shares. */
export interface Runtime {
  config: Config;
  logger: Logger;
  store: Store;
  /** General-purpose connection (readiness, rate limits); roles open their own for blocking work. */
  redis: Redis;
  /** Deploys and rollbacks of any process, for the caches of active versions of this one. */
  activationNotices: ActivationNotices;
  /** This process's Prometheus metrics (GET /metrics on the API, METRICS_PORT on a worker). */
  metrics: ServiceMetrics;
  /** Every queue, for looking at (metrics, the operators' dashboard). */
  queues: Queue[];
}

export interface RunningPart {
  name: string;
  /** Where clients reach it, for the start-up line (the API's base URL). */
  url?: string;
  stop(): Promise<void>;
}

export type PartStarter = (runtime: Runtime) => Promise<RunningPart>;

const REDIS_PROBE_TIMEOUT_MS = 4000;

/** Fails within a few seconds, with the one thing to do, when Redis is not there. */
export async function probeRedis(url: string): Promise<void> {
  const advice = `redis is not reachable at ${redactUrl(url)}`;
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS - 1000,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    lastError = error.message;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_PROBE_TIMEOUT_MS} ms`)), REDIS_PROBE_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    const cause = lastError || (error as Error).message;
    throw new StartupError(`${advice} (${cause}): start it with \`redis-server\` or set REDIS_URL`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

/** A built-in module that does not compile stops the start-up: domain queries must not silently miss it. */
async function loadBuiltins(config: Config): Promise<BuiltinModule[]> {
  try {
    return await loadBuiltinLibrary(config.BUILTIN_POLICY_DIR);
  } catch (error) {
    if (error instanceof BuiltinLibraryError) throw new StartupError(`cannot load the built-in policy library: ${error.message}`);
    throw error;
  }
}

/** The one evaluation path as a process composes it: dispatcher to `policy-evaluate`, audit, rollups, versions. */
function createEvaluationPath({ config, store, activationNotices, metrics }: Runtime, builtins: readonly BuiltinModule[]) {
  const dispatcher = createEvaluationDispatcher({
    transport: createRedisBatchTransport({
      connection: config.REDIS_URL,
      prefix: config.REDIS_KEY_PREFIX,
      responseTimeoutMs: config.NO_WORKER_TIMEOUT_MS,
    }),
    maxBatchItems: config.BATCH_MAX_ITEMS,
    flushMs: config.DISPATCH_FLUSH_MS,
    maxInFlight: config.DISPATCH_MAX_IN_FLIGHT,
    maxHoldMs: config.DISPATCH_MAX_HOLD_MS,
  });
  const auditWriter = observedAuditWriter(createAuditChainWriter(store.audit), metrics);
  const builtinVersions = createBuiltinVersions(builtins);
  const versions = createVersionResolver({
    policies: store.policies,
    builtins: builtinVersions,
    activeVersionCacheMs: config.ACTIVE_VERSION_CACHE_MS,
    notices: activationNotices,
  });
  const evaluation: EvaluationService = createEvaluationService({
    dispatcher,
    audit: auditWriter,
    rollups: store.rollups,
    policies: versions,
    limits: { contextMaxDepth: config.CONTEXT_MAX_DEPTH, maxResponseBytes: config.EVALUATION_MAX_RESPONSE_BYTES, storeWaitMs: config.EVALUATION_STORE_WAIT_MS },
  });
  return { dispatcher, auditWriter, builtinVersions, versions, evaluation };
}

/** Per-tenant detection settings over the configured defaults. */
function anomalySettingsOf(runtime: Runtime, audit: AuditChainWriter): AnomalySettings {
  return createAnomalySettings({ repository: runtime.store.anomalySettings, defaults: detectionDefaults(runtime.config), audit });
}

async function openConfiguredStore(config: Config): Promise<Store> {
  const location = storeLocation(config);
  try {
    return await openStore(location);
  } catch (error) {
    const cause = (error as Error).message;
    if (location.mongodbUrl !== undefined) {
      throw new StartupError(
        `mongodb is not usable at ${redactUrl(location.mongodbUrl)} (${cause}): start it, fix MONGODB_URL, or unset it to use the embedded SQLite store`,
      );
    }
    throw new StartupError(`cannot open the SQLite store at ${location.sqlitePath} (${cause}): check DATA_DIR`);
  }
}

async function openRuntime(config: Config, logger: Logger, role: ProcessRole): Promise<Runtime> {
  await probeRedis(config.REDIS_URL);
  const store = await openConfiguredStore(config);
  // No offline queue: while Redis is away, commands fail at once instead of piling up.
  const redis = new Redis(config.REDIS_URL, { connectionName: 'pe-runtime', enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const subscriber = createRedisClient(config.REDIS_URL, 'pe-policy-activations');
  subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  let activationNotices: ActivationNotices;
  try {
    await awaitRedisReady(redis, config.REDIS_URL);
    activationNotices = await createRedisActivationNotices({
      publisher: redis,
      subscriber,
      channel: `${config.REDIS_KEY_PREFIX}:policy-activations`,
      onError: (error) => logger.warn({ err: error }, 'policy activation notices: Redis failed (caches fall back on ACTIVE_VERSION_CACHE_MS)'),
    });
  } catch (error) {
    subscriber.disconnect();
    redis.disconnect();
    await store.close();
    throw error;
  }
  const metrics = createServiceMetrics({ role });
  // The connection's own listener logs its errors; the queues' would repeat them once per queue.
  const queues = openServiceQueues(redis, config.REDIS_KEY_PREFIX, () => {});
  observeQueueDepths(metrics, queues);
  return { config, logger, store, redis, activationNotices, metrics, queues };
}

/** Waits for the connection's first `ready`; a connection that does not get there is dropped. */
async function awaitRedisReady(redis: Redis, url: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      redis.once('ready', resolve);
      setTimeout(() => reject(new StartupError(`redis at ${redactUrl(url)} did not become ready`)), REDIS_PROBE_TIMEOUT_MS).unref();
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(`port ${port} on ${host} is already in use: stop the other process or set PORT`)
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Redis for the per-request commands of the API (rate limit, request nonces). Auto-pipelining
 * sends the commands that concurrent requests issue in one event-loop turn as one write, so their
 * cost is paid per turn, not per request. Like the runtime connection it queues nothing while
 * Redis is away: requests fail fast instead.
 */
async function openRequestRedis(config: Config, logger: Logger): Promise<Redis> {
  const redis = new Redis(config.REDIS_URL, {
    connectionName: 'pe-api-requests',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
  });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  await awaitRedisReady(redis, config.REDIS_URL);
  return redis;
}

/** Counts request handlers until they finish, which can be after their connection closed. */
function trackHandlers(handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) {
  let running = 0;
  const waiters: Array<() => void> = [];
  return {
    handle(req: IncomingMessage, res: ServerResponse): void {
      running++;
      const done = () => {
        if (--running > 0) return;
        for (const wake of waiters.splice(0)) wake();
      };
      // Koa answers its own errors; a rejection here would be a failed write, already logged by the app.
      handler(req, res).then(done, done);
    },
    settled(): Promise<void> {
      return running === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** The HTTP API. */
export const startApi: PartStarter = async (runtime) => {
  const { config, logger, store } = runtime;
  let keyRing: JwtKeyRing;
  try {
    keyRing = await loadJwtKeyRing({ jwtKeys: config.JWT_KEYS, dataDir: config.DATA_DIR });
  } catch (error) {
    throw new StartupError(`cannot load the token signing keys: ${(error as Error).message}`);
  }
  const builtins = await loadBuiltins(config);
  // Evaluations always travel through the `policy-evaluate` queue, also in role `all`, so any
  // worker process can take them and the queue semantics are the same in every deployment.
  const requestRedis = await openRequestRedis(config, logger);
  const { dispatcher, auditWriter, builtinVersions, versions, evaluation } = createEvaluationPath(runtime, builtins);
  const requestLimits = { contextMaxDepth: config.CONTEXT_MAX_DEPTH };
  // One claim owner for every audit record this process owes (deploys, rollbacks, anomaly status changes).
  const auditLease = newAuditOutboxLease();
  const onAuditMarkError = (error: unknown) => logger.warn({ err: error }, 'audit record written but its entry not marked; the audit outbox follower marks it');
  const catalog = createPolicyCatalog({
    policies: store.policies,
    audit: auditWriter,
    compile: evaluation.compile,
    format: evaluation.format,
    builtins: builtinVersions,
    versions,
    auditLease,
    onAuditMarkError,
  });
  // Writes the audit records that deploys, rollbacks, detections and anomaly status changes owe
  // when their own write failed, in this or any process.
  const auditOutboxFollower = createAuditOutboxFollower({
    outboxes: [registryAuditOutbox(store.policies), anomalyAuditOutbox(store.anomalies)],
    auditRecords: store.audit,
    audit: auditWriter,
    lease: auditLease,
    onError: (error, outbox, owed) =>
      logger.warn({ err: error, outbox, tenantId: owed?.tenantId, recordId: owed?.recordId }, 'audit outbox follower failed; it tries again'),
    onSettled: (outbox, owed, written) =>
      logger.info({ outbox, tenantId: owed.tenantId, recordId: owed.recordId, entry: owed.entry, written }, 'audit outbox follower settled an owed record'),
  });
  const signingSecrets = createSigningSecretCache(store.tenants);
  const nonceGuard = createNonceGuard({
    redis: requestRedis,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:nonce:`,
    windowSeconds: config.SIGNATURE_WINDOW_SECONDS,
  });
  const anomalyQueues = createAnomalyJobQueues({ connection: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX });
  const workflowQueue = createWorkflowJobQueue({ connection: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX });
  // Chain verifications hash on threads of their own, so no request waits behind a long chain.
  const chainPageThreads = createChainPageThreads(config.AUDIT_VERIFY_CONCURRENCY);
  const auditVerifier = createChainVerifier({
    records: store.audit,
    check: chainPageThreads.check,
    concurrency: config.AUDIT_VERIFY_CONCURRENCY,
    fullIntervalMs: config.AUDIT_VERIFY_FULL_INTERVAL_SECONDS * 1000,
  });
  const releaseEvaluation = async () => {
    await evaluation.flush();
    await dispatcher.close();
    await anomalyQueues.close();
    await workflowQueue.close();
    await auditWriter.close();
    await chainPageThreads.close();
    requestRedis.disconnect();
  };
  const tokenVerifier = createTokenVerifier(keyRing, { maxLifetimeSeconds: config.JWT_MAX_LIFETIME_SECONDS });
  const app = createApp({
    logger,
    store,
    redis: runtime.redis,
    metrics: runtime.metrics,
    tokenVerifier,
    auditVerifier,
    queueBoard: createQueueBoard({
      queues: runtime.queues,
      tokenVerifier,
      operatorTenant: config.OPERATOR_TENANT,
      loginThrottle: createLoginThrottle({ redis: requestRedis, keyPrefix: `${config.REDIS_KEY_PREFIX}:login-failures` }),
    }),
    rateLimiter: createTenantRateLimiter({
      redis: requestRedis,
      points: config.RATE_LIMIT_POINTS,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      keyPrefix: `${config.REDIS_KEY_PREFIX}:rate-limit`,
    }),
    bodyLimitBytes: config.BODY_LIMIT,
    responseMaxBytes: config.RESPONSE_MAX_BYTES,
    trustProxy: config.TRUST_PROXY,
    routes: [
      createAnomalyRoutes({
        triage: createAnomalyTriage({
          anomalies: store.anomalies,
          audit: auditWriter,
          auditLease,
          onAuditMarkError,
          enqueueVerification: (request) => anomalyQueues.enqueueVerification(request),
        }),
        settings: anomalySettingsOf(runtime, auditWriter),
      }),
      createWorkflowRoutes({
        service: createWorkflowService({
          workflows: observedWorkflowRepository(store.workflows, runtime.metrics),
          quotas: {
            contextMaxBytes: config.WORKFLOW_CONTEXT_MAX_BYTES,
            maxUnfinished: config.WORKFLOW_TENANT_MAX_UNFINISHED,
            maxStoredBytes: config.WORKFLOW_TENANT_MAX_STORED_BYTES,
          },
          versions,
          definitions: createWorkflowDefinitions({ versions, compile: evaluation.compile }),
          enqueueRun: (tenantId, workflowId) => workflowQueue.enqueueRun(tenantId, workflowId),
          onRunNotQueued: (error, tenantId, workflowId) =>
            logger.warn({ err: error, tenantId, workflowId }, 'workflow run not queued; the resume sweep will run it'),
        }),
        tenants: signingSecrets,
        nonceGuard,
        signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
      }),
      createEvaluationRoutes({
        service: evaluation,
        tenants: signingSecrets,
        nonceGuard,
        signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
        maxBatchItems: config.EVALUATE_BATCH_MAX_ITEMS,
        limits: requestLimits,
      }),
      createPolicyRoutes({
        catalog,
        service: evaluation,
        tenants: signingSecrets,
        nonceGuard,
        signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
        limits: requestLimits,
      }),
      // The same nonce guard as the REST evaluation routes: a nonce is single-use across both.
      createGraphqlRoute({
        tenants: signingSecrets,
        nonceGuard,
        policies: createPolicyLookup(catalog),
        decide: createDomainDecider(evaluation),
        signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
        documentCacheSize: config.GRAPHQL_DOCUMENT_CACHE_SIZE,
        maxResponseBytes: config.RESPONSE_MAX_BYTES,
        limits: {
          maxDocumentBytes: config.GRAPHQL_MAX_DOCUMENT_BYTES,
          maxTokens: config.GRAPHQL_MAX_TOKENS,
          maxDepth: config.GRAPHQL_MAX_DEPTH,
          maxAliases: config.GRAPHQL_MAX_ALIASES,
          maxCost: config.GRAPHQL_MAX_COST,
          decisionCost: config.GRAPHQL_DECISION_COST,
          introspection: config.GRAPHQL_INTROSPECTION,
        },
      }),
    ],
  });
  const handlers = trackHandlers(app.callback());
  const server = createServer(handlers.handle);
  answerUnparsableRequests(server);
  let address: AddressInfo;
  try {
    address = await listen(server, config.PORT, config.HOST);
  } catch (error) {
    await releaseEvaluation();
    throw error;
  }
  logger.info({ host: address.address, port: address.port, jwtKeys: keyRing.source, store: store.kind }, 'api listening');
  auditOutboxFollower.start(config.AUDIT_OUTBOX_INTERVAL_SECONDS * 1000);
  return {
    name: 'api',
    // A wildcard address is not one a browser or curl can use.
    url: `http://${['0.0.0.0', '::'].includes(address.address) ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_SECONDS * 1000);
      await closed;
      clearTimeout(grace);
      // No client is left to read a verification: walks of long chains end at their next page.
      auditVerifier.close();
      // A handler goes on after its client hung up; it still needs Redis, the dispatcher and the writer.
      await handlers.settled();
      // Its pass appends through the writer, so it ends before the writer closes.
      await auditOutboxFollower.stop();
      // Requests are done: nothing waits on the dispatcher any more; the writer flushes what is queued.
      await releaseEvaluation();
    },
  };
};

/** The `policy-evaluate` consumer: a thread pool running the interpreter, fed by BullMQ. */
async function startEvaluationProcessor({ config, logger, metrics }: Runtime): Promise<RunningPart> {
  let pool: EnginePool;
  try {
    pool = createEnginePool({
      threads: config.ENGINE_THREADS,
      taskTimeoutMs: config.EVALUATION_TIMEOUT_MS,
      stepBudget: config.EVALUATION_STEP_BUDGET,
      cacheSize: config.PROGRAM_CACHE_SIZE,
      cacheTenants: config.PROGRAM_CACHE_TENANTS,
      taskSliceMs: config.ENGINE_TASK_SLICE_MS,
      maxResultBytes: config.EVALUATION_MAX_RESULT_BYTES,
      maxTraceBytes: config.EVALUATION_MAX_TRACE_BYTES,
      ...(config.ENGINE_THREAD_MAX_MEMORY_MB !== undefined ? { maxThreadMemoryMb: config.ENGINE_THREAD_MAX_MEMORY_MB } : {}),
    });
  } catch (error) {
    if (error instanceof EngineThreadFileMissingError) throw new StartupError(error.message);
    throw error;
  }
  const concurrency = config.WORKER_CONCURRENCY ?? 16 * config.ENGINE_THREADS;
  let worker: Awaited<ReturnType<typeof startEvaluationWorker>>;
  try {
    worker = await startEvaluationWorker({
      connection: config.REDIS_URL,
      pool,
      concurrency,
      prefix: config.REDIS_KEY_PREFIX,
      maxReplyBytes: config.REPLY_MESSAGE_MAX_BYTES,
      onError: (error) => logger.warn({ err: error }, 'evaluation worker error'),
    });
  } catch (error) {
    await pool.close();
    throw error;
  }
  observeWorker(worker.worker, metrics);
  metrics.gaugeOnScrape('policy_engine_engine_thread_utilization', 'Share of the evaluation threads\' time spent running tasks since the pool started (0 to 1)', [], (set) =>
    set({}, pool.stats().utilization),
  );
  metrics.gaugeOnScrape('policy_engine_engine_queued_items', 'Evaluation items waiting for a thread in this process', [], (set) => set({}, pool.stats().queuedItems));
  logger.info(
    { threads: pool.size, concurrency, timeoutMs: config.EVALUATION_TIMEOUT_MS, stepBudget: config.EVALUATION_STEP_BUDGET },
    'evaluation engine started',
  );
  return {
    name: 'policy-evaluate',
    async stop() {
      // Batches in progress finish (their callers get answers) before the threads go.
      await worker.close();
      await pool.close();
    },
  };
}

/** Scheduled anomaly detection and verification jobs (`anomaly-detect`, `anomaly-verify`). */
async function startAnomalyProcessor(runtime: Runtime): Promise<RunningPart> {
  const { config, logger, store } = runtime;
  const builtinModules = new Set((await loadBuiltins(config)).map((module) => module.moduleName));
  const audit = observedAuditWriter(createAuditChainWriter(store.audit), runtime.metrics);
  const settings = anomalySettingsOf(runtime, audit);
  const owing = {
    store,
    settings,
    audit,
    builtinModules,
    auditLease: newAuditOutboxLease(),
    onAuditMarkError: (error: unknown) => logger.warn({ err: error }, 'audit record written but its entry not marked; the audit outbox follower marks it'),
  };
  let workers: Awaited<ReturnType<typeof startAnomalyWorkers>>;
  try {
    workers = await startAnomalyWorkers({
      connection: config.REDIS_URL,
      prefix: config.REDIS_KEY_PREFIX,
      // New anomalies and status changes owe their records like the API's; an API process's follower writes the ones they could not.
      detector: createAnomalyDetector({
        ...owing,
        budget: { versionsPerRound: config.ANOMALY_DETECT_MAX_VERSIONS, openedPerRound: config.ANOMALY_DETECT_MAX_OPENED },
      }),
      verifier: createAnomalyVerifier(owing),
      detectEveryMs: config.ANOMALY_DETECT_INTERVAL_SECONDS * 1000,
      onError: (error) => logger.warn({ err: error }, 'anomaly worker error'),
      onDetectionError: (tenantId, error) => logger.error({ err: error, tenantId }, 'anomaly detection failed for a tenant'),
    });
  } catch (error) {
    await audit.close();
    throw error;
  }
  observeWorker(workers.detectWorker, runtime.metrics);
  observeWorker(workers.verifyWorker, runtime.metrics);
  logger.info({ everySeconds: config.ANOMALY_DETECT_INTERVAL_SECONDS }, 'anomaly detection scheduled');
  return {
    name: 'anomalies',
    async stop() {
      await workers.close();
      await audit.close();
    },
  };
}

/** The `workflow-run` consumer: advances workflows, each step through the one evaluation path. */
async function startWorkflowProcessor(runtime: Runtime): Promise<RunningPart> {
  const { config, logger, store } = runtime;
  const { dispatcher, auditWriter, versions, evaluation } = createEvaluationPath(runtime, await loadBuiltins(config));
  const queue = createWorkflowJobQueue({ connection: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX });
  const definitions = createWorkflowDefinitions({ versions, compile: evaluation.compile });
  const workflows = observedWorkflowRepository(store.workflows, runtime.metrics);
  const runner = createWorkflowRunner({
    workflows,
    definition: (tenantId, record) => definitions.find(tenantId, record.policyModule, record.version, record.workflow),
    evaluate: (tenantId, record, rule, args) => evaluateStep(evaluation, tenantId, record, rule, args),
    scheduleTimeout: (tenantId, workflowId, step, delayMs) => queue.scheduleTimeout(tenantId, workflowId, step, delayMs),
  });
  const release = async () => {
    await evaluation.flush();
    await dispatcher.close();
    await queue.close();
    await auditWriter.close();
  };
  let worker: Awaited<ReturnType<typeof startWorkflowWorker>>;
  try {
    worker = await startWorkflowWorker({
      connection: config.REDIS_URL,
      prefix: config.REDIS_KEY_PREFIX,
      runner,
      lockMs: config.WORKFLOW_JOB_LOCK_SECONDS * 1000,
      onError: (error) => logger.warn({ err: error }, 'workflow worker error'),
      onSliceFailed: (error, tenantId, workflowId, failures, givenUp) =>
        logger.warn(
          { err: error, tenantId, workflowId, failures },
          givenUp ? 'workflow slice failed; attempts used up, the resume sweep will run it again' : 'workflow slice failed; retried after a back-off',
        ),
    });
  } catch (error) {
    await release();
    throw error;
  }
  observeWorker(worker.worker, runtime.metrics);
  const resumeEveryMs = config.WORKFLOW_RESUME_INTERVAL_SECONDS * 1000;
  const resumer = createWorkflowResumer({
    workflows,
    resume: (tenantId, workflowId, timedOutStep) => queue.resume(tenantId, workflowId, timedOutStep),
    scheduleTimeout: (tenantId, workflowId, step, delayMs) => queue.scheduleTimeout(tenantId, workflowId, step, delayMs),
    // A fresher log most likely has its job queued or running; for an older one a spare job is harmless.
    graceMs: resumeEveryMs,
  });
  const resumeSchedule = startWorkflowResumeSchedule({
    redis: runtime.redis,
    prefix: config.REDIS_KEY_PREFIX,
    intervalMs: resumeEveryMs,
    async sweep(after) {
      const sweep = await resumer.sweep(after);
      if (sweep.resumed > 0 || sweep.finished > 0) logger.info(sweep, 'workflows resumed');
      else logger.debug(sweep, 'workflow resume sweep');
      return sweep;
    },
    onError: (error) => logger.warn({ err: error }, 'workflow resume sweep failed (the next interval tries again)'),
  });
  logger.info({ lockSeconds: config.WORKFLOW_JOB_LOCK_SECONDS, resumeEverySeconds: config.WORKFLOW_RESUME_INTERVAL_SECONDS }, 'workflow worker started');
  return {
    name: 'workflow-run',
    async stop() {
      await resumeSchedule.stop();
      await worker.close();
      await release();
    },
  };
}

/** Background work. Queue processors register here, each as a part that can stop. */
export const startWorker: PartStarter = async (runtime) => {
  const { logger } = runtime;
  const processors: RunningPart[] = [];
  processors.push(await startEvaluationProcessor(runtime));
  processors.push(await startAnomalyProcessor(runtime));
  processors.push(await startWorkflowProcessor(runtime));
  logger.info({ processors: processors.map((p) => p.name) }, 'worker started');
  return {
    name: 'worker',
    async stop() {
      for (const processor of processors.reverse()) await processor.stop();
    },
  };
};

/** Workers start first so that the API never accepts work nobody can take. */
/** A worker process's metrics on METRICS_PORT (the API serves its own at GET /metrics). */
export const startWorkerMetrics: PartStarter = async ({ config, logger, metrics }) => {
  if (config.METRICS_PORT === undefined) return { name: 'metrics (off)', stop: async () => {} };
  let server: Awaited<ReturnType<typeof startMetricsServer>>;
  try {
    server = await startMetricsServer(metrics, config.METRICS_PORT, config.HOST);
  } catch (error) {
    throw new StartupError(`cannot serve metrics on port ${config.METRICS_PORT} (${(error as Error).message}): set another METRICS_PORT`);
  }
  logger.info({ port: server.port }, 'metrics listening');
  return { name: 'metrics', url: `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${server.port}/metrics`, stop: () => server.close() };
};

export const ROLE_PARTS: Readonly<Record<ProcessRole, readonly PartStarter[]>> = {
  api: [startApi],
  worker: [startWorker, startWorkerMetrics],
  all: [startWorker, startApi],
};

export interface Service {
  role: ProcessRole;
  runtime: Runtime;
  parts: readonly RunningPart[];
  /** Stops the parts in reverse order, then closes the shared connections. */
  stop(): Promise<void>;
}

export async function startService(role: ProcessRole, config: Config, logger: Logger): Promise<Service> {
  const runtime = await openRuntime(config, logger, role);
  const parts: RunningPart[] = [];
  const stop = async () => {
    for (const part of [...parts].reverse()) {
      try {
        await part.stop();
      } catch (error) {
        logger.error({ err: error, part: part.name }, 'part failed to stop cleanly');
      }
    }
    await runtime.activationNotices.close();
    await Promise.allSettled(runtime.queues.map((queue) => queue.close()));
    runtime.redis.disconnect();
    await runtime.store.close();
  };
  try {
    for (const start of ROLE_PARTS[role]) parts.push(await start(runtime));
  } catch (error) {
    await stop();
    throw error;
  }
  return { role, runtime, parts, stop };
}

/** One line for the person who started it, beside the JSON logs (on stderr, so log pipes stay JSON). */
function startupLine(service: Service): string {
  const { version } = serviceVersion();
  const { config, store } = service.runtime;
  const where = storeLocation(config);
  const storeText = store.kind === 'sqlite' ? `SQLite at ${where.sqlitePath}` : `MongoDB at ${redactUrl(where.mongodbUrl ?? '')}`;
  const api = service.parts.find((part) => part.name === 'api')?.url;
  const metrics = service.parts.find((part) => part.name === 'metrics')?.url;
  const serving =
    api !== undefined ? `API at ${api} (try ${api}/readyz)` : metrics !== undefined ? `no API in this role, metrics at ${metrics}` : 'no API in this role';
  return `policy engine ${version} started, role ${service.role}: ${serving}; ${storeText}; Redis ${redactUrl(config.REDIS_URL)}. Stop with Ctrl-C.\n`;
}

function parseRole(value: string): ProcessRole {
  if (!(PROCESS_ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PROCESS_ROLES.join(', ')}`);
  }
  return value as ProcessRole;
}

/** Runs the process until SIGINT/SIGTERM. Returns the exit code for start-up failures. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const program = new Command('policy-engine')
    .description('multi-tenant policy engine service')
    .option('--role <role>', `process role: ${PROCESS_ROLES.join(', ')} (default: ROLE or all)`, parseRole)
    .exitOverride();
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode ?? 1;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const role = (program.opts<{ role?: ProcessRole }>().role ?? config.ROLE) as ProcessRole;
  const logger = createLogger({ level: config.LOG_LEVEL, base: { role }, format: config.LOG_FORMAT });

  let service: Service;
  try {
    service = await startService(role, config, logger);
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  logger.info({ store: service.runtime.store.kind }, 'service started');
  process.stderr.write(startupLine(service));

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`start-up failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}

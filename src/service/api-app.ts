import { anomalyAuditOutbox, createAnomalyJobQueues, createAnomalyTriage } from '../anomalies/index.js';
import {
  createAnomalyRoutes,
  createApp,
  createAuditRoutes,
  createConsoleRoutes,
  createEvaluationRoutes,
  createHealthRoutes,
  createLoginThrottle,
  createMetricsRoutes,
  createOpenApiRoutes,
  createPolicyRoutes,
  createQueueBoard,
  createOpenStreams,
  createRollupRoutes,
  createSigningSecretCache,
  createStreamRoutes,
  createTenantRateLimiter,
  createVersionRoutes,
  createWebhookRoutes,
  createWorkflowRoutes,
  type OpenStreams,
  type RouteGroup,
} from '../api/index.js';
import { createAuditOutboxFollower, createChainPageThreads, createChainVerifier, newAuditOutboxLease } from '../audit/index.js';
import { createNonceGuard, createTokenVerifier, type JwtKeyRing } from '../auth/index.js';
import type { AppendListeners, RedisClient } from '../jobs/index.js';
import { redisConnection } from '../config/index.js';
import { createGraphqlRoute } from '../graphql/index.js';
import { observedWorkflowRepository } from '../metrics/index.js';
import { createDomainDecider, createPolicyCatalog, createPolicyLookup, createRolloutControl, registryAuditOutbox, type BuiltinModule } from '../policies/index.js';
import { createWebhookService } from '../webhooks/index.js';
import { createWorkflowDefinitions, createWorkflowJobQueue, createWorkflowService } from '../workflows/index.js';
import { anomalySettingsOf } from './anomaly-settings-of.js';
import { identityProviderOf, trustedGatewayOf } from './caller-authentication.js';
import { createEvaluationPath } from './evaluation-path.js';
import { inRouteGroupOrder } from './route-group-order.js';
import type { Runtime } from './runtime.js';
import { destinationRulesOf, webhookJobQueueOf } from './webhook-settings.js';

export interface ApiAppInputs {
  keyRing: JwtKeyRing;
  builtins: readonly BuiltinModule[];
  /** The API's per-request connection (rate limit, nonces, login throttle); `release` disconnects it. */
  requestRedis: RedisClient;
  /** The append notices the streams wake on; `release` closes them. */
  appendListeners: AppendListeners;
}

/** The Koa app with every route over one evaluation path, and what the API part stops. */
export interface ApiApp {
  app: ReturnType<typeof createApp>;
  auditVerifier: ReturnType<typeof createChainVerifier>;
  auditOutboxFollower: ReturnType<typeof createAuditOutboxFollower>;
  /** The open streams, ended first when the API stops. */
  streams: OpenStreams;
  /** Flushes and closes the evaluation path, the queues the routes feed, the chain threads and the request connection. */
  release(): Promise<void>;
}

export function assembleApiApp(runtime: Runtime, { keyRing, builtins, requestRedis, appendListeners }: ApiAppInputs): ApiApp {
  const { config, logger, store } = runtime;
  // A caller waits on the API's evaluations: they answer 503 once the store is slower than EVALUATION_STORE_WAIT_MS.
  const { builtinVersions, versions, evaluation, rolloutTally, close: closeEvaluationPath } = createEvaluationPath(runtime, builtins, {
    storeWaitMs: config.EVALUATION_STORE_WAIT_MS,
  });
  const auditWriter = runtime.audit.recorder;
  const requestLimits = { contextMaxDepth: config.CONTEXT_MAX_DEPTH };
  // One claim owner for every audit record this process owes (deploys, rollbacks, anomaly status changes).
  const auditLease = newAuditOutboxLease(config.AUDIT_OUTBOX_LEASE_SECONDS * 1000);
  const onAuditMarkError = (error: unknown) => logger.warn({ err: error }, 'audit record written but its entry not marked; the audit outbox follower marks it');
  const catalog = createPolicyCatalog({
    policies: store.policies,
    audit: auditWriter,
    compile: evaluation.compile,
    evaluateCases: evaluation.evaluateCases,
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
    auditRecords: { chain: store.audit, links: store.auditLinks },
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
  const anomalyQueues = createAnomalyJobQueues({ connection: redisConnection(config), prefix: config.REDIS_KEY_PREFIX });
  const workflowQueue = createWorkflowJobQueue({ connection: redisConnection(config), prefix: config.REDIS_KEY_PREFIX });
  const webhookQueue = webhookJobQueueOf(config);
  // Chain verifications read (on SQLite) and hash on threads of their own, so no request waits behind a long chain.
  const chainPageThreads = createChainPageThreads(config.AUDIT_VERIFY_CONCURRENCY);
  const auditVerifier = createChainVerifier({
    records: store.audit,
    check: chainPageThreads.check,
    storedPages: chainPageThreads,
    concurrency: config.AUDIT_VERIFY_CONCURRENCY,
    fullIntervalMs: config.AUDIT_VERIFY_FULL_INTERVAL_SECONDS * 1000,
  });
  const release = async () => {
    await closeEvaluationPath();
    await anomalyQueues.close();
    await workflowQueue.close();
    await webhookQueue.close();
    await auditWriter.flush();
    await chainPageThreads.close();
    await appendListeners.close();
    requestRedis.disconnect();
  };
  const streams = createOpenStreams({
    maxPerTenant: config.STREAM_MAX_PER_TENANT,
    maxPerProcess: config.STREAM_MAX_PER_PROCESS,
    onError: (error, tenantId) => logger.warn({ err: error, tenantId }, 'stream read failed; the stream ends and its client reconnects'),
  });
  const tokenVerifier = createTokenVerifier(keyRing, {
    maxLifetimeSeconds: config.JWT_MAX_LIFETIME_SECONDS,
    identityProvider: identityProviderOf(config, logger),
    developmentTokens: config.JWT_DEVELOPMENT_TOKENS,
  });
  const workflowService = createWorkflowService({
    workflows: observedWorkflowRepository(runtime.workflows, runtime.metrics),
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
  });
  // Registered, and listed by the OpenAPI document built from them, in ROUTE_GROUP_ORDER.
  const routes: RouteGroup[] = inRouteGroupOrder({
    health: createHealthRoutes({ store, redis: runtime.redis }),
    version: createVersionRoutes(),
    metrics: createMetricsRoutes(runtime.metrics),
    openapi: createOpenApiRoutes(() => routes),
    console: createConsoleRoutes(),
    audit: createAuditRoutes({ records: store.audit, links: store.auditLinks, verifier: auditVerifier }),
    anomalies: createAnomalyRoutes({
      triage: createAnomalyTriage({
        anomalies: store.anomalies,
        audit: auditWriter,
        auditLease,
        onAuditMarkError,
        enqueueVerification: (request) => anomalyQueues.enqueueVerification(request),
      }),
      settings: anomalySettingsOf(runtime, auditWriter),
    }),
    rollups: createRollupRoutes(store.rollups),
    evaluation: createEvaluationRoutes({
      service: evaluation,
      tenants: signingSecrets,
      nonceGuard,
      signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
      maxBatchItems: config.EVALUATE_BATCH_MAX_ITEMS,
      limits: requestLimits,
    }),
    policies: createPolicyRoutes({
      catalog,
      rollouts: createRolloutControl({
        policies: store.policies,
        rollups: store.rollups,
        versions,
        builtins: builtinVersions,
        rolloutTally,
        audit: auditWriter,
        auditLease,
        onAuditMarkError,
      }),
      service: evaluation,
      tenants: signingSecrets,
      nonceGuard,
      signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
      limits: requestLimits,
    }),
    workflows: createWorkflowRoutes({
      service: workflowService,
      tenants: signingSecrets,
      nonceGuard,
      signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
    }),
    streams: createStreamRoutes({ workflows: workflowService, audit: store.audit, notices: appendListeners, streams }),
    webhooks: createWebhookRoutes(
      createWebhookService({
        webhooks: store.webhooks,
        chainHead: async (tenantId) => (await store.audit.head(tenantId))?.seq ?? 0,
        redeliver: (tenantId, deliveryId, attemptsMade, beforeQueuing) => webhookQueue.redeliver(tenantId, deliveryId, attemptsMade, beforeQueuing),
        rules: destinationRulesOf(config),
        maxPerTenant: config.WEBHOOK_MAX_PER_TENANT,
      }),
    ),
    // The same nonce guard as the REST evaluation routes: a nonce is single-use across both.
    graphql: createGraphqlRoute({
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
  });
  const app = createApp({
    logger,
    idempotency: store.idempotency,
    metrics: runtime.metrics,
    tokenVerifier,
    gateway: trustedGatewayOf(config),
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
    routes,
  });
  return { app, auditVerifier, auditOutboxFollower, streams, release };
}

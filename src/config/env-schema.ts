import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { LOG_FORMATS } from '../logging/index.js';
import { isValidTenantId } from '../kernel/index.js';
import { DETECTION_BUDGET_BOUNDS } from '../anomalies/detection-budget.js';
import { DETECTION_SETTING_BOUNDS, settingProblem, type DetectionSettingName, type DetectionSettings } from '../anomalies/detection-settings.js';
import { DEFAULT_RESPONSE_MAX_BYTES } from '../api/json-answer.js';
import { DEFAULT_TASK_TIMEOUT_MS } from '../engine/index.js';
import { parseJwtKeysSpec } from '../auth/jwt-keys-spec.js';
import { DEFAULT_PROVIDER_ALGORITHMS, parseProviderAlgorithms } from '../auth/provider-algorithms.js';
import { parseGatewayNetworks } from '../auth/trusted-gateway.js';
import { parseClusterNodes } from '../jobs/index.js';
import { parseByteSize } from './byte-size.js';

/** Process roles: `all` runs the API and the worker in one process. */
export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, { message: `must be a whole number between ${min} and ${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { message: `must be between ${min} and ${max}` });
}

function url(protocols: readonly string[]) {
  return z.string().refine(
    (text) => {
      try {
        return protocols.includes(new URL(text).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
  );
}

/** A detection default, with the bounds the per-tenant settings have. */
function detectionSetting(name: DetectionSettingName) {
  const bounds = DETECTION_SETTING_BOUNDS[name];
  return z
    .string()
    .transform((text, ctx) => {
      const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
      const problem = settingProblem(name, value);
      if (problem !== null) {
        ctx.addIssue({ code: 'custom', message: `must be ${bounds.integer ? 'a whole number' : 'a number'} between ${bounds.min} and ${bounds.max}` });
        return z.NEVER;
      }
      return value;
    })
    .default(bounds.default);
}

/** A value parsed by a function that throws a message naming what is wrong. */
function parsed<T>(parse: (text: string) => T) {
  return z.string().transform((text, ctx) => {
    try {
      return parse(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });
}

/**
 * Where an identity provider publishes its keys: https, or plain http to this machine only (a
 * sidecar, a test provider), since whoever can change the answer can mint any token. No
 * credentials in the URL: they would show in logs.
 */
function jwksUrl() {
  return z.string().refine(
    (text) => {
      try {
        const { protocol, hostname, username, password } = new URL(text);
        const loopback = hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
        return username === '' && password === '' && (protocol === 'https:' || (protocol === 'http:' && loopback));
      } catch {
        return false;
      }
    },
    { message: 'must be an https:// URL (http:// only to localhost) without credentials' },
  );
}

/** A claim's name, or a dotted path into nested claims (`realm_access.roles`). */
function claimName() {
  return z.string().regex(/^[^\s]{1,256}$/, { message: 'must be a claim name of 1-256 characters without spaces' });
}

function boolean() {
  return z
    .enum(['true', 'false', '1', '0'], { message: 'must be true, false, 1 or 0' })
    .transform((text) => text === 'true' || text === '1');
}

/** Where Redis answers when REDIS_URL is not set. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * The whole environment, validated once at start-up. Add a variable here (and to the configuration
 * table of docs/configuration.md); values arrive as strings, empty strings count as unset.
 */
export const envSchema = z.object({
  PORT: integer(0, 65535).default(8080),
  // A worker process serves GET /metrics here when set (API processes serve it on PORT).
  METRICS_PORT: integer(0, 65535).optional(),
  // Tokens of this tenant (and only these) open the queue dashboard at /admin/queues: it shows every tenant's jobs.
  OPERATOR_TENANT: z.string().refine(isValidTenantId, { message: "must be 1-64 letters, digits, '_' or '-'" }).default('operators'),
  HOST: z.string().min(1).default('0.0.0.0'),
  ROLE: z.enum(PROCESS_ROLES, { message: `must be one of ${PROCESS_ROLES.join(', ')}` }).default('all'),
  REDIS_URL: url(['redis:', 'rediss:']).default(DEFAULT_REDIS_URL),
  // A Redis Cluster's seed nodes (docs/operations.md, Redis Cluster): every Redis user goes to the
  // cluster, and REDIS_URL lends it only TLS (`rediss:`), user name and password.
  REDIS_CLUSTER_NODES: parsed(parseClusterNodes).optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_{}:.-]{1,64}$/, { message: "must be 1-64 characters of letters, digits, '_', '-', '.', ':', '{', '}'" })
    .default('pe'),
  MONGODB_URL: url(['mongodb:', 'mongodb+srv:']).optional(),
  MONGODB_DATABASE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, { message: "must be 1-63 characters of letters, digits, '_' or '-'" })
    .optional(),
  // A MongoDB operation waits this long for a reachable server, then the request gets 503 + Retry-After.
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: integer(100, 120_000).default(2000),
  // …a new connection this long for its handshake, and an open one this long for an answer.
  MONGODB_CONNECT_TIMEOUT_MS: integer(100, 120_000).default(5000),
  MONGODB_SOCKET_TIMEOUT_MS: integer(1000, 600_000).default(10_000),
  DATA_DIR: z.string().min(1).default('./data'),
  /** Unset: `policies/` of the package. */
  BUILTIN_POLICY_DIR: z.string().min(1).optional(),
  JWT_KEYS: parsed(parseJwtKeysSpec).optional(),
  /** Longest lifetime (`exp - iat`) of a bearer token the API accepts and `npm run token` mints. */
  JWT_MAX_LIFETIME_SECONDS: integer(60, 31_536_000).default(86_400),
  // An identity provider's tokens (docs/authentication.md): its key set, issuer and audience, the
  // algorithms it signs with, and the claims that name the caller.
  JWT_JWKS_URL: jwksUrl().optional(),
  JWT_DEVELOPMENT_TOKENS: boolean().default(true),
  JWT_ISSUER: z.string().max(2048).optional(),
  JWT_AUDIENCE: z.string().max(2048).optional(),
  JWT_ALGORITHMS: parsed(parseProviderAlgorithms).default([...DEFAULT_PROVIDER_ALGORITHMS]),
  JWT_JWKS_COOLDOWN_SECONDS: integer(1, 3600).default(30),
  JWT_JWKS_TIMEOUT_MS: integer(100, 60_000).default(5000),
  JWT_SUBJECT_CLAIM: claimName().default('sub'),
  JWT_TENANT_CLAIM: claimName().default('tenant'),
  JWT_ROLE_CLAIM: claimName().default('role'),
  // Header-only callers behind an authenticating gateway: the gateway's addresses, and a secret it adds.
  TRUSTED_GATEWAY_CIDRS: parsed(parseGatewayNetworks).optional(),
  // Printable ASCII: header values arrive trimmed and read as latin1, so nothing else could match.
  TRUSTED_GATEWAY_SECRET: z.string().regex(/^[\x21-\x7e]{16,1024}$/, { message: 'must be 16-1024 printable ASCII characters without spaces' }).optional(),
  RATE_LIMIT_POINTS: integer(1, 1_000_000_000).default(50_000),
  RATE_LIMIT_WINDOW_SECONDS: integer(1, 86_400).default(60),
  BODY_LIMIT: z
    .string()
    .transform((text, ctx) => {
      const bytes = parseByteSize(text);
      if (bytes === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a size such as 512kb, 1mb or a number of bytes' });
        return z.NEVER;
      }
      return bytes;
    })
    .default(1024 * 1024),
  // The largest JSON answer; one that would be larger is a 500 ERR_RESPONSE_TOO_LARGE envelope.
  RESPONSE_MAX_BYTES: integer(1024 * 1024, 512 * 1024 * 1024).default(DEFAULT_RESPONSE_MAX_BYTES),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS, { message: `must be one of ${LOG_FORMATS.join(', ')}` }).default('json'),
  TRUST_PROXY: boolean().default(false),
  SHUTDOWN_GRACE_SECONDS: integer(0, 600).default(10),
  // Server-Sent Event streams (docs/operations.md, Event streams) open at once per API process: one tenant's, and all.
  STREAM_MAX_PER_TENANT: integer(1, 100_000).default(20),
  STREAM_MAX_PER_PROCESS: integer(1, 1_000_000).default(1000),
  // Evaluation engine (src/engine/README.md): worker-side pool, API-side dispatcher, endpoints.
  ENGINE_THREADS: integer(1, 256).default(availableParallelism()),
  EVALUATION_TIMEOUT_MS: integer(1, 600_000).default(DEFAULT_TASK_TIMEOUT_MS),
  EVALUATION_STEP_BUDGET: integer(1, Number.MAX_SAFE_INTEGER).default(1_000_000),
  PROGRAM_CACHE_SIZE: integer(0, 1_000_000).default(64),
  PROGRAM_CACHE_TENANTS: integer(1, 100_000).default(32),
  // How long an API or worker process answers with a module's active version before asking the store
  // again; deploys and rollbacks end it at once (in other processes through Redis pub/sub).
  ACTIVE_VERSION_CACHE_MS: integer(0, 60_000).default(1000),
  ENGINE_TASK_SLICE_MS: integer(1, 10_000).default(5),
  EVALUATION_MAX_RESULT_BYTES: integer(1024, 256 * 1024 * 1024).default(1024 * 1024),
  EVALUATION_MAX_TRACE_BYTES: integer(1024, 256 * 1024 * 1024).default(1024 * 1024),
  EVALUATION_MAX_RESPONSE_BYTES: integer(1024, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  // The language converts at most 64 levels of lists and records (PL5008), so more would never help.
  CONTEXT_MAX_DEPTH: integer(1, 64).default(64),
  REPLY_MESSAGE_MAX_BYTES: integer(1024, 64 * 1024 * 1024).default(512 * 1024),
  ENGINE_THREAD_MAX_MEMORY_MB: integer(16, 1_048_576).optional(),
  /** Unset: 16 × ENGINE_THREADS: jobs wait in the pool's fair per-tenant queues rather than in Redis. */
  WORKER_CONCURRENCY: integer(1, 10_000).optional(),
  BATCH_MAX_ITEMS: integer(1, 10_000).default(64),
  DISPATCH_FLUSH_MS: integer(0, 1000).default(1),
  DISPATCH_MAX_IN_FLIGHT: integer(1, 10_000).default(4),
  DISPATCH_MAX_HOLD_MS: integer(0, 10_000).default(50),
  NO_WORKER_TIMEOUT_MS: integer(1, 600_000).default(5000),
  // How long one evaluation waits for the store (policy lookups and audit records together) before a 503.
  EVALUATION_STORE_WAIT_MS: integer(100, 600_000).default(10_000),
  EVALUATE_BATCH_MAX_ITEMS: integer(1, 100_000).default(1000),
  SIGNATURE_WINDOW_SECONDS: integer(1, 3600).default(300),
  // GraphQL protection (each violation is a GraphQL error, never a 500).
  GRAPHQL_MAX_DOCUMENT_BYTES: integer(256, 1_048_576).default(32_768),
  GRAPHQL_MAX_TOKENS: integer(16, 100_000).default(5000),
  GRAPHQL_MAX_DEPTH: integer(2, 100).default(15),
  GRAPHQL_MAX_ALIASES: integer(1, 1000).default(30),
  GRAPHQL_MAX_COST: integer(1, 1_000_000).default(1000),
  GRAPHQL_DECISION_COST: integer(1, 10_000).default(10),
  GRAPHQL_INTROSPECTION: boolean().default(true),
  GRAPHQL_DOCUMENT_CACHE_SIZE: integer(0, 100_000).default(256),
  // Anomaly detection (src/anomalies/README.md): the schedule, and the defaults a tenant's ADMIN may override.
  ANOMALY_DETECT_INTERVAL_SECONDS: integer(1, 86_400).default(60),
  // One tenant's detection round assesses at most this many versions and opens at most this many anomalies; the next rounds go on from there.
  ANOMALY_DETECT_MAX_VERSIONS: integer(DETECTION_BUDGET_BOUNDS.versionsPerRound.min, DETECTION_BUDGET_BOUNDS.versionsPerRound.max).default(DETECTION_BUDGET_BOUNDS.versionsPerRound.default),
  ANOMALY_DETECT_MAX_OPENED: integer(DETECTION_BUDGET_BOUNDS.openedPerRound.min, DETECTION_BUDGET_BOUNDS.openedPerRound.max).default(DETECTION_BUDGET_BOUNDS.openedPerRound.default),
  // How often the rollout guard compares running canaries with their stable versions (src/anomalies/rollout-guard.ts).
  ROLLOUT_GUARD_INTERVAL_SECONDS: integer(1, 3600).default(10),
  // How often an API process writes the audit records whose own write failed (deploys, rollbacks, anomaly status changes).
  AUDIT_OUTBOX_INTERVAL_SECONDS: integer(1, 3600).default(5),
  // How long the process that stored such an entry has to write its record before the follower may.
  AUDIT_OUTBOX_LEASE_SECONDS: integer(10, 3600).default(60),
  // The linker (src/audit/README.md): a tenant's chain is linked by the one process holding its lease;
  // another takes the tenant over this long after the holder stopped renewing it (it died, or froze).
  AUDIT_LINK_LEASE_SECONDS: integer(2, 3600).default(10),
  // How often a process links the tenants it holds and looks for records waiting with no one linking them.
  AUDIT_LINK_SWEEP_MS: integer(50, 60_000).default(500),
  // GET /api/v1/audit/verify (src/audit/README.md): walks hashing on threads at once per API process…
  AUDIT_VERIFY_CONCURRENCY: integer(1, 64).default(2),
  // …and how old a tenant's last walk from seq 1 may be before a verification walks the whole chain again.
  AUDIT_VERIFY_FULL_INTERVAL_SECONDS: integer(60, 31_536_000).default(3600),
  // Workflows (src/workflows/README.md): a dead worker's workflow jobs are taken over after this.
  WORKFLOW_JOB_LOCK_SECONDS: integer(1, 3600).default(30),
  // How often a worker looks for workflows whose jobs were lost (Redis lost its data) and resumes them.
  WORKFLOW_RESUME_INTERVAL_SECONDS: integer(1, 86_400).default(60),
  // Quotas of a tenant's workflows, checked when one starts (src/workflows/README.md, Quotas).
  WORKFLOW_CONTEXT_MAX_BYTES: integer(2, 16 * 1024 * 1024).default(64 * 1024),
  WORKFLOW_TENANT_MAX_UNFINISHED: integer(1, 10_000_000).default(1000),
  WORKFLOW_TENANT_MAX_STORED_BYTES: integer(1024, Number.MAX_SAFE_INTEGER).default(1024 * 1024 * 1024),
  // Webhooks (src/webhooks/README.md): subscriptions a tenant may have, and where deliveries may go.
  WEBHOOK_MAX_PER_TENANT: integer(1, 1000).default(10),
  WEBHOOK_ALLOW_HTTP: boolean().default(false),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean().default(false),
  // Attempts of one delivery, the first retried after WEBHOOK_BACKOFF_BASE_MS and each next one after twice the wait before.
  WEBHOOK_MAX_ATTEMPTS: integer(1, 30).default(8),
  WEBHOOK_BACKOFF_BASE_MS: integer(10, 86_400_000).default(30_000),
  // Deliveries kept per subscription (the newest), for its deliveries list and redelivery.
  WEBHOOK_DELIVERIES_KEPT: integer(1, 10_000).default(100),
  // Attempts a worker process makes at once, and of those of one tenant in the whole deployment.
  WEBHOOK_DELIVERY_CONCURRENCY: integer(1, 1000).default(16),
  WEBHOOK_TENANT_CONCURRENCY: integer(1, 1000).default(4),
  // How often a worker reads the subscribed tenants' audit chains for events to deliver.
  WEBHOOK_FOLLOW_INTERVAL_MS: integer(50, 3_600_000).default(1000),
  ANOMALY_WINDOW_MINUTES: detectionSetting('windowMinutes'),
  ANOMALY_BASELINE_DAYS: detectionSetting('baselineDays'),
  ANOMALY_MIN_SAMPLES: detectionSetting('minSamples'),
  ANOMALY_FAILURE_RATE_THRESHOLD: detectionSetting('failureRateThreshold'),
  ANOMALY_ZOMBIE_GRACE_MINUTES: detectionSetting('zombieGraceMinutes'),
  ANOMALY_SLOWDOWN_FACTOR: detectionSetting('slowdownFactor'),
  ANOMALY_DISMISS_COOLDOWN_HOURS: detectionSetting('dismissCooldownHours'),
  ANOMALY_AUTO_RESOLVE_MINUTES: detectionSetting('autoResolveMinutes'),
}).superRefine((config, ctx) => {
  // Tokens of a provider are only as trustworthy as the check of whom they were issued by and for.
  const provider = { JWT_JWKS_URL: config.JWT_JWKS_URL, JWT_ISSUER: config.JWT_ISSUER, JWT_AUDIENCE: config.JWT_AUDIENCE };
  if (Object.values(provider).some((value) => value !== undefined)) {
    for (const [name, value] of Object.entries(provider)) {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'must be set too: JWT_JWKS_URL, JWT_ISSUER and JWT_AUDIENCE go together' });
      }
    }
  }
  if (!config.JWT_DEVELOPMENT_TOKENS && config.JWT_JWKS_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['JWT_DEVELOPMENT_TOKENS'], message: 'may be false only with an identity provider (JWT_JWKS_URL): no token would be accepted' });
  }
  if (config.TRUSTED_GATEWAY_SECRET !== undefined && config.TRUSTED_GATEWAY_CIDRS === undefined) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_GATEWAY_SECRET'], message: 'is used only with TRUSTED_GATEWAY_CIDRS, which is not set' });
  }
  // A batch's answers may take EVALUATION_MAX_RESPONSE_BYTES; their envelopes need room beside them.
  if (config.RESPONSE_MAX_BYTES < config.EVALUATION_MAX_RESPONSE_BYTES + 1024 * 1024) {
    ctx.addIssue({
      code: 'custom',
      path: ['RESPONSE_MAX_BYTES'],
      message: `must be at least EVALUATION_MAX_RESPONSE_BYTES + 1 MiB (${config.EVALUATION_MAX_RESPONSE_BYTES + 1024 * 1024})`,
    });
  }
  // A cluster has database 0 only: a REDIS_URL naming another one would be a choice silently dropped.
  if (config.REDIS_CLUSTER_NODES !== undefined && !['', '/', '/0'].includes(new URL(config.REDIS_URL).pathname)) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'may name only database 0 with REDIS_CLUSTER_NODES: a Redis Cluster has no other' });
  }
  // Otherwise a batch holding one runaway policy is reported as "no worker" instead of as its timeout.
  if (config.NO_WORKER_TIMEOUT_MS <= config.EVALUATION_TIMEOUT_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['NO_WORKER_TIMEOUT_MS'],
      message: `must be greater than EVALUATION_TIMEOUT_MS (${config.EVALUATION_TIMEOUT_MS})`,
    });
  }
});

export type Config = z.output<typeof envSchema>;

/** The service-wide detection defaults the configuration sets. */
export function detectionDefaults(config: Config): DetectionSettings {
  return {
    windowMinutes: config.ANOMALY_WINDOW_MINUTES,
    baselineDays: config.ANOMALY_BASELINE_DAYS,
    minSamples: config.ANOMALY_MIN_SAMPLES,
    failureRateThreshold: config.ANOMALY_FAILURE_RATE_THRESHOLD,
    zombieGraceMinutes: config.ANOMALY_ZOMBIE_GRACE_MINUTES,
    slowdownFactor: config.ANOMALY_SLOWDOWN_FACTOR,
    dismissCooldownHours: config.ANOMALY_DISMISS_COOLDOWN_HOURS,
    autoResolveMinutes: config.ANOMALY_AUTO_RESOLVE_MINUTES,
  };
}

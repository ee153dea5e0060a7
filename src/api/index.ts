export { createApp } from './create-app.js';
export { answerUnparsableRequests } from './unparsable-request.js';
export { serviceVersion, type ServiceVersion } from './service-version.js';
export type { AppDeps } from './app-deps.js';
export type { AppContext, AppMiddleware, AppRouter, AppState } from './app-types.js';
export {
  bindRoutes,
  declareRoutes,
  type Authentication,
  type OperationText,
  type RouteDeclaration,
  type RouteGroup,
  type RouteSpec,
  type SignedRequestOptions,
} from './route-declaration.js';
export { ApiError, isExposedError, type ExposedError } from './api-error.js';
export { ApiErrorCode, type ApiErrorCodeValue } from './error-codes.js';
export { AUDIT_CONTENT_HASH_HEADER, AUDIT_RECORD_ID_HEADER, receiptFields, type ReceiptFields } from './audit-receipt.js';
export { errorEnvelope, type ErrorEnvelope } from './error-envelope.js';
export { DEFAULT_RESPONSE_MAX_BYTES, jsonAnswer } from './json-answer.js';
export { createTenantRateLimiter, type RateLimitDecision, type TenantRateLimiter, type TenantRateLimiterOptions } from './tenant-rate-limiter.js';
export { TENANT_HEADER } from './middleware/tenant-header.js';
export { REQUEST_ID_HEADER } from './middleware/request-context.js';
export { queryValue, integerParam, timeRangeParams } from './query-params.js';
export { parseIsoTimestamp } from './iso-timestamp.js';
export { createHealthRoutes, HEALTH_ROUTES, type HealthRouteDeps } from './routes/health.js';
export { createVersionRoutes, VERSION_ROUTES } from './routes/version.js';
export { createMetricsRoutes, METRICS_ROUTES } from './routes/metrics.js';
export { createOpenApiRoutes, OPENAPI_ROUTES } from './routes/openapi.js';
export { createConsoleRoutes, CONSOLE_ROUTES } from './routes/console.js';
export { createAuditRoutes, AUDIT_ROUTES, type AuditRouteDeps } from './routes/audit.js';
export {
  createEvaluationRoutes,
  EVALUATION_ROUTES,
  EVALUATE_SOURCE_ROUTE,
  EVALUATE_SOURCE_BATCH_ROUTE,
  type EvaluationRouteOptions,
} from './routes/evaluation.js';
export { createSigningSecretCache, type SigningSecretCacheOptions } from './routes/evaluation-signing-secrets.js';
export { createPolicyRoutes, POLICY_ROUTES, POLICIES_ROUTE, EVALUATE_STORED_POLICY_ROUTE, type PolicyRouteOptions } from './routes/policies.js';
export {
  createAnomalyRoutes,
  ANOMALY_ROUTES,
  ANOMALIES_ROUTE,
  ANOMALY_SETTINGS_ROUTE,
  ANOMALY_PAGE_MAX_SIZE,
  type AnomalyRouteOptions,
} from './routes/anomalies.js';
export {
  idempotencyRequestHash,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_REPLAY_MS,
} from './middleware/idempotency.js';
export { createWorkflowRoutes, WORKFLOW_ROUTES, WORKFLOWS_ROUTE, type WorkflowRouteOptions } from './routes/workflows.js';
export { createRollupRoutes, ROLLUP_ROUTES, ROLLUPS_ROUTE } from './routes/rollups.js';
export { createStreamRoutes, STREAM_ROUTES } from './routes/streams.js';
export { createOpenStreams, type OpenStreams } from './streams/open-streams.js';
export { createWebhookRoutes, WEBHOOK_ROUTES, WEBHOOKS_ROUTE } from './routes/webhooks.js';
export { buildOpenApiDocument } from './openapi/openapi-document.js';
export * as answerSchemas from './openapi/response-schemas.js';
export { createQueueBoard, OPERATOR_LOGIN_PATH, OPERATOR_LOGOUT_PATH, QUEUE_BOARD_ADMIN_PATH, QUEUE_BOARD_PATH, type QueueBoardOptions } from './admin/queue-board.js';
export { createLoginThrottle, LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_FAILURES_PER_ADDRESS, type LoginThrottle } from './admin/login-throttle.js';

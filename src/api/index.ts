export { createApp } from './create-app.js';
export { answerUnparsableRequests } from './unparsable-request.js';
export { serviceVersion, type ServiceVersion } from './service-version.js';
export type { AppContext, AppDeps, AppMiddleware, AppRouter, AppState, RouteKit, RouteModule } from './app-types.js';
export { ApiError, isExposedError, type ExposedError } from './api-error.js';
export { ApiErrorCode, type ApiErrorCodeValue } from './error-codes.js';
export { errorEnvelope, type ErrorEnvelope } from './error-envelope.js';
export { DEFAULT_RESPONSE_MAX_BYTES, jsonAnswer } from './json-answer.js';
export { createTenantRateLimiter, type RateLimitDecision, type TenantRateLimiter, type TenantRateLimiterOptions } from './tenant-rate-limiter.js';
export { TENANT_HEADER } from './middleware/tenant-header.js';
export { REQUEST_ID_HEADER } from './middleware/request-context.js';
export { queryValue, integerParam, timeRangeParams } from './query-params.js';
export { parseIsoTimestamp } from './iso-timestamp.js';
export {
  createEvaluationRoutes,
  EVALUATE_SOURCE_ROUTE,
  EVALUATE_SOURCE_BATCH_ROUTE,
  type EvaluationRouteOptions,
} from './routes/evaluation.js';
export { createSigningSecretCache, type SigningSecretCacheOptions } from './routes/evaluation-signing-secrets.js';
export { createPolicyRoutes, POLICIES_ROUTE, EVALUATE_STORED_POLICY_ROUTE, type PolicyRouteOptions } from './routes/policies.js';
export {
  createAnomalyRoutes,
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
export { createWorkflowRoutes, WORKFLOWS_ROUTE, type WorkflowRouteOptions } from './routes/workflows.js';
export { ROLLUPS_ROUTE } from './routes/rollups.js';
export { API_OPERATIONS, AUTHENTICATION_ERRORS, type ApiOperation, type Authentication } from './openapi/api-operations.js';
export { buildOpenApiDocument } from './openapi/openapi-document.js';
export * as answerSchemas from './openapi/response-schemas.js';
export { createQueueBoard, OPERATOR_LOGIN_PATH, OPERATOR_LOGOUT_PATH, QUEUE_BOARD_ADMIN_PATH, QUEUE_BOARD_PATH, type QueueBoardOptions } from './admin/queue-board.js';
export { createLoginThrottle, LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_FAILURES_PER_ADDRESS, type LoginThrottle } from './admin/login-throttle.js';

// Every route of the service in the order the API registers them (the OpenAPI document's), for
// suites that walk the documented operations without building the app.
import {
  ANOMALY_ROUTES,
  AUDIT_ROUTES,
  CONSOLE_ROUTES,
  EVALUATION_ROUTES,
  HEALTH_ROUTES,
  METRICS_ROUTES,
  OPENAPI_ROUTES,
  POLICY_ROUTES,
  ROLLUP_ROUTES,
  STREAM_ROUTES,
  VERSION_ROUTES,
  WEBHOOK_ROUTES,
  WORKFLOW_ROUTES,
  type OperationText,
  type RouteSpec,
} from '../../src/api/index.js';
import { GRAPHQL_ROUTES } from '../../src/graphql/index.js';
import { inRouteGroupOrder } from '../../src/service/index.js';

export const SERVICE_ROUTES: readonly RouteSpec[] = inRouteGroupOrder<readonly RouteSpec[]>({
  health: HEALTH_ROUTES,
  version: VERSION_ROUTES,
  metrics: METRICS_ROUTES,
  openapi: OPENAPI_ROUTES,
  console: CONSOLE_ROUTES,
  audit: AUDIT_ROUTES,
  anomalies: ANOMALY_ROUTES,
  rollups: ROLLUP_ROUTES,
  evaluation: EVALUATION_ROUTES,
  policies: POLICY_ROUTES,
  workflows: WORKFLOW_ROUTES,
  streams: STREAM_ROUTES,
  webhooks: WEBHOOK_ROUTES,
  graphql: GRAPHQL_ROUTES,
}).flat();

/** A route the OpenAPI document shows. */
export type ApiOperation = RouteSpec & { doc: OperationText };

/** The routes the OpenAPI document shows (the pages of the console and the API reference are not operations). */
export const API_OPERATIONS: readonly ApiOperation[] = SERVICE_ROUTES.filter((route): route is ApiOperation => route.doc !== undefined);

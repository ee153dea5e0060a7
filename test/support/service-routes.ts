// Every route of the service as main.ts registers them, in its order (the OpenAPI document's), for
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
  VERSION_ROUTES,
  WORKFLOW_ROUTES,
  type OperationText,
  type RouteSpec,
} from '../../src/api/index.js';
import { GRAPHQL_ROUTES } from '../../src/graphql/index.js';

export const SERVICE_ROUTES: readonly RouteSpec[] = [
  ...HEALTH_ROUTES,
  ...VERSION_ROUTES,
  ...METRICS_ROUTES,
  ...OPENAPI_ROUTES,
  ...CONSOLE_ROUTES,
  ...AUDIT_ROUTES,
  ...ANOMALY_ROUTES,
  ...ROLLUP_ROUTES,
  ...EVALUATION_ROUTES,
  ...POLICY_ROUTES,
  ...WORKFLOW_ROUTES,
  ...GRAPHQL_ROUTES,
];

/** A route the OpenAPI document shows. */
export type ApiOperation = RouteSpec & { doc: OperationText };

/** The routes the OpenAPI document shows (the pages of the console and the API reference are not operations). */
export const API_OPERATIONS: readonly ApiOperation[] = SERVICE_ROUTES.filter((route): route is ApiOperation => route.doc !== undefined);

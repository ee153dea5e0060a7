/**
 * The API's route groups in the order they are registered, which is the order the OpenAPI
 * document lists their operations in. The API app and the suites that walk the documented routes
 * without building it both follow this list.
 */
const ROUTE_GROUP_ORDER = [
  'health',
  'version',
  'metrics',
  'openapi',
  'console',
  'audit',
  'anomalies',
  'rollups',
  'evaluation',
  'policies',
  'workflows',
  'streams',
  'webhooks',
  'graphql',
] as const;

export type RouteGroupName = (typeof ROUTE_GROUP_ORDER)[number];

/** The groups of `byName` in ROUTE_GROUP_ORDER. */
export function inRouteGroupOrder<T>(byName: Readonly<Record<RouteGroupName, T>>): T[] {
  return ROUTE_GROUP_ORDER.map((name) => byName[name]);
}

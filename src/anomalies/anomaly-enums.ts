/** The closed sets an anomaly is described by: stored as text, checked by both store adapters, named in the API. */
export const ANOMALY_TYPES = ['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'] as const;
export type AnomalyType = (typeof ANOMALY_TYPES)[number];
export const ANOMALY_STATUSES = ['OPEN', 'VERIFYING', 'RESOLVED', 'DISMISSED'] as const;
export type AnomalyStatus = (typeof ANOMALY_STATUSES)[number];
export const ANOMALY_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];

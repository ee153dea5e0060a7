import { ANOMALY_AUDIT_EVENT_TYPES } from '../anomalies/index.js';
import { EVALUATION_AUDIT_EVENT_TYPES } from '../evaluation/index.js';
import { POLICY_AUDIT_EVENT_TYPES } from '../policies/index.js';

/**
 * Every event type the service records in the audit chain, each named by the domain that records
 * it; a list by any other type could only ever be empty. The audit routes check against it and
 * the API document lists it.
 */
export const AUDIT_EVENT_TYPES: readonly string[] = [...EVALUATION_AUDIT_EVENT_TYPES, ...POLICY_AUDIT_EVENT_TYPES, ...ANOMALY_AUDIT_EVENT_TYPES];

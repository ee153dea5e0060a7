import type { AnomalyStatus } from './anomaly-enums.js';

/** Targets a PATCH may request from each status. VERIFYING leaves only through its verification job. */
export const TRIAGE_TRANSITIONS: Readonly<Record<AnomalyStatus, readonly AnomalyStatus[]>> = {
  OPEN: ['RESOLVED', 'DISMISSED'],
  VERIFYING: [],
  RESOLVED: ['OPEN'],
  DISMISSED: ['OPEN'],
};

/** Targets a client may name in a PATCH at all. */
export const TRIAGE_TARGETS = ['OPEN', 'RESOLVED', 'DISMISSED'] as const;
export type TriageTarget = (typeof TRIAGE_TARGETS)[number];

/** A live anomaly is the one detection keeps up to date for its key. */
export function isLive(status: AnomalyStatus): boolean {
  return status === 'OPEN' || status === 'VERIFYING';
}

import type { AnomalyKey, AnomalyState } from './anomaly-store.js';

/** `<module>@<version>`, as policy ids and audit records spell a module version. */
export function anomalyVersionId(key: Pick<AnomalyKey, 'policyModule' | 'version'>): string {
  return `${key.policyModule}@${key.version}`;
}

/** An anomaly as the list returns it (interface: Anomaly). */
export interface AnomalyListItem {
  id: string;
  type: string;
  policyModule: string;
  policyFunction: string;
  versionId: string;
  detectedAt: string;
  status: string;
  severity: string;
  summary: string;
}

/** The detail adds the numbers, the advice, and when it was last seen, changed and verified. */
export interface AnomalyDetail extends AnomalyListItem {
  metrics: Record<string, unknown>;
  recommendedActions: string[];
  lastSeenAt: string;
  statusChangedAt: string | null;
  lastVerification: AnomalyState['verification'];
}

export function listItemView(anomaly: AnomalyState): AnomalyListItem {
  return {
    id: anomaly.id,
    type: anomaly.type,
    policyModule: anomaly.policyModule,
    policyFunction: anomaly.policyFunction,
    versionId: anomalyVersionId(anomaly),
    detectedAt: anomaly.detectedAt,
    status: anomaly.status,
    severity: anomaly.observation.severity,
    summary: anomaly.observation.summary,
  };
}

export function detailView(anomaly: AnomalyState): AnomalyDetail {
  return {
    ...listItemView(anomaly),
    metrics: anomaly.observation.metrics,
    recommendedActions: anomaly.observation.recommendedActions,
    lastSeenAt: anomaly.observation.observedAt,
    statusChangedAt: anomaly.statusChangedAt,
    lastVerification: anomaly.verification,
  };
}

/**
 * How much one tenant's detection round may do. A version here is one version of one policy
 * function (module, function, version), the unit the rules assess; what a round leaves over is
 * assessed by the next rounds, which start where it stopped (see the detector).
 */
export interface DetectionBudget {
  /** Versions assessed by the rules per tenant and round. */
  versionsPerRound: number;
  /** Anomalies opened per tenant and round; also the most OPEN anomalies a round resolves for a tenant. */
  openedPerRound: number;
}

/** The bounds of the environment settings (`ANOMALY_DETECT_MAX_VERSIONS`, `ANOMALY_DETECT_MAX_OPENED`). */
export const DETECTION_BUDGET_BOUNDS = {
  versionsPerRound: { min: 1, max: 100_000, default: 1000 },
  openedPerRound: { min: 1, max: 100_000, default: 100 },
} as const;

export const DEFAULT_DETECTION_BUDGET: Readonly<DetectionBudget> = Object.freeze({
  versionsPerRound: DETECTION_BUDGET_BOUNDS.versionsPerRound.default,
  openedPerRound: DETECTION_BUDGET_BOUNDS.openedPerRound.default,
});

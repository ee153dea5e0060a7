import type { RollupTotals } from '../rollups/index.js';
import type { AnomalySeverity, AnomalyType } from './anomaly-enums.js';
import type { DetectionSettings } from './detection-settings.js';

/** The two periods compared: baseline [baselineStart, start), window [start, end]; ISO 8601 instants. */
export interface DetectionWindow {
  baselineStart: string;
  start: string;
  end: string;
}

/** Where a version stands in its module's activation log when it is assessed. */
export interface VersionStanding {
  /** The module's active version; null when no version is active. */
  activeVersion: number | null;
  /** When the version stopped being active; null while it is active. */
  supersededSince: string | null;
}

/** Everything the rules may look at for one version of one function: rollup sums, never raw evaluations. */
export interface VersionEvidence {
  policyModule: string;
  policyFunction: string;
  version: number;
  /** The version's buckets in the window summed; null when it had no evaluation there. */
  window: RollupTotals | null;
  /** The version's buckets in the baseline summed; null when none. */
  baseline: RollupTotals | null;
  /** Evaluations of the function in the window, all versions together. */
  functionWindowCount: number;
  standing: VersionStanding;
}

/** One rule's verdict on one version: whether the anomaly's condition holds, and the numbers behind it. */
export interface Assessment {
  type: AnomalyType;
  holds: boolean;
  /** Set when the condition holds. */
  severity: AnomalySeverity | null;
  /** JSON numbers, strings and nulls; the type's metrics (see src/anomalies/README.md). */
  metrics: Record<string, number | string | null>;
}

export type Assessor = (evidence: VersionEvidence, window: DetectionWindow, settings: DetectionSettings) => Assessment;

/** The human side of an anomaly, written from its numbers. */
export interface AnomalyDescription {
  summary: string;
  recommendedActions: string[];
}

export {
  ANOMALY_SEVERITIES,
  ANOMALY_STATUSES,
  ANOMALY_TYPES,
  type AnomalySeverity,
  type AnomalyStatus,
  type AnomalyType,
} from './anomaly-enums.js';
export type {
  AnomalyKey,
  AnomalyListQuery,
  AnomalyObservation,
  AnomalyPage,
  AnomalyRepository,
  AnomalyState,
  AnomalyTransition,
  AnomalyVerification,
  AuditedAnomalyEntry,
  StoredAnomaly,
} from './anomaly-store.js';
export type { AnomalySettingsRecord, AnomalySettingsRepository } from './anomaly-settings-store.js';
export type { Assessment, AnomalyDescription, DetectionWindow, VersionEvidence, VersionStanding } from './assessment.js';
export {
  DEFAULT_DETECTION_SETTINGS,
  DETECTION_SETTING_BOUNDS,
  DETECTION_SETTING_NAMES,
  SLOWDOWN_SIGNIFICANCE,
  effectiveSettings,
  settingProblem,
  type DetectionSettingName,
  type DetectionSettings,
} from './detection-settings.js';
export { AnomalyError, AnomalyErrorCode } from './anomaly-errors.js';
export {
  ANOMALY_AUDIT_EVENT_TYPES,
  ANOMALY_DETECTED,
  ANOMALY_SETTINGS_CHANGED,
  ANOMALY_STATUS_CHANGED,
  DETECTOR_ACTOR,
  VERIFIER_ACTOR,
} from './anomaly-events.js';
export { TRIAGE_TARGETS, TRIAGE_TRANSITIONS, type TriageTarget } from './anomaly-status-rules.js';
export { anomalyVersionId, type AnomalyDetail, type AnomalyListItem } from './anomaly-view.js';
export { anomalySettingsBodySchema, createAnomalySettings, type AnomalySettings, type AnomalySettingsDeps, type AnomalySettingsView } from './anomaly-settings.js';
export {
  createAnomalyDetector,
  type AnomalyDetector,
  type AnomalyDetectorDeps,
  type TenantDetection,
} from './anomaly-detector.js';
export { DEFAULT_DETECTION_BUDGET, DETECTION_BUDGET_BOUNDS, type DetectionBudget } from './detection-budget.js';
export {
  createAnomalyVerifier,
  type AnomalyVerifier,
  type AnomalyVerifierDeps,
  type VerificationOutcome,
  type VerificationRequest,
} from './anomaly-verifier.js';
export {
  createAnomalyTriage,
  type AnomalyListRequest,
  type AnomalyPageView,
  type AnomalyTriage,
  type AnomalyTriageDeps,
} from './anomaly-triage.js';
export { anomalyAuditOutbox } from './anomaly-audit-outbox.js';
export { detectedRecordId, statusChangedRecordId } from './anomaly-audit-ids.js';
export {
  readRollupSeries,
  seriesWindow,
  ROLLUP_SERIES_MAX_POINTS,
  ROLLUP_SERIES_MAX_VERSIONS,
  ROLLUP_STEPS,
  TooManyVersionsError,
  type RollupSeriesView,
  type RollupStep,
} from './rollup-series.js';
export {
  ANOMALY_DETECT_SCHEDULER_ID,
  createAnomalyJobQueues,
  DetectionTimeoutError,
  type AnomalyDetectJobData,
  type AnomalyJobQueues,
  type AnomalyJobQueuesOptions,
  type AnomalyVerifyJobData,
  type DetectionRound,
  type DetectionRun,
} from './queue/anomaly-jobs.js';
export { startAnomalyWorkers, type AnomalyWorkers, type AnomalyWorkersOptions } from './queue/anomaly-workers.js';
export { startAnomalyDetectSchedule, type AnomalyDetectSchedule, type AnomalyDetectScheduleOptions } from './queue/anomaly-detect-schedule.js';
export {
  canaryVerdict,
  createRolloutGuard,
  GUARD_MIN_SLOWDOWN_MS,
  GUARD_ROLLOUTS_PER_TENANT,
  ROLLOUT_GUARD_ACTOR,
  type GuardRound,
  type GuardVerdict,
  type RolloutGuard,
  type RolloutGuardDeps,
} from './rollout-guard.js';

import { randomUUID } from 'node:crypto';
import { createOwedRecordWriter, newAuditOutboxLease, type AuditRecorder, type AuditOutboxLease } from '../audit/index.js';
import type { PolicyRepository } from '../policies/index.js';
import type { RollupRepository, RollupVersionKey } from '../rollups/index.js';
import { detectedRecordId } from './anomaly-audit-ids.js';
import { AnomalyError, AnomalyErrorCode } from './anomaly-errors.js';
import { detectedEvent, DETECTOR_ACTOR } from './anomaly-events.js';
import type { AnomalySettings } from './anomaly-settings.js';
import { isLive } from './anomaly-status-rules.js';
import type { AnomalyKey, AnomalyObservation, AnomalyRepository, AnomalyState, StoredAnomaly } from './anomaly-store.js';
import { describeAnomaly } from './anomaly-texts.js';
import type { Assessment, DetectionWindow, VersionEvidence } from './assessment.js';
import { createAuditedTransitions } from './audited-transitions.js';
import { ASSESSORS } from './detection-rules.js';
import { DEFAULT_DETECTION_BUDGET, type DetectionBudget } from './detection-budget.js';
import { DETECTION_SETTING_BOUNDS, type DetectionSettings } from './detection-settings.js';
import { createTurnTaker, type TakeTurn } from './event-loop-turns.js';
import { detectionWindow, readRoundEvidence, readVersionEvidence, type EvidenceSources } from './evidence-reader.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** Rounds of "someone else opened it first" before a finding gives up; each round makes progress. */
const MAX_OPEN_ATTEMPTS = 8;

/** `deferred`: the round's budget of anomalies opened was spent; the next round opens it. */
export type FindingOutcome = 'opened' | 'updated' | 'unchanged' | 'suppressed' | 'deferred';

/** What one detection round did for one tenant. */
export interface TenantDetection {
  tenantId: string;
  windowStart: string;
  windowEnd: string;
  /** Rollup buckets read (window and baseline). */
  buckets: number;
  /** Versions evaluated in the window. */
  versions: number;
  /** Versions this round assessed with every rule (at most the budget's `versionsPerRound`). */
  assessed: number;
  opened: number;
  updated: number;
  /** Live anomalies found again with the same numbers, left as stored (see `isUnchanged`). */
  unchanged: number;
  /** Findings not opened again because their key was dismissed within the cooldown. */
  suppressed: number;
  /** OPEN anomalies resolved because their condition has not held for `autoResolveMinutes`. */
  resolved: number;
  /** Where the next round starts (after this version); null: at the first, everything was assessed. */
  continueAfter: RollupVersionKey | null;
}

export interface AnomalyDetector {
  /**
   * One round for one tenant within the budget, starting after `after` (null: at the first
   * version); pass the report's `continueAfter` to the next round.
   */
  detectTenant(tenantId: string, after?: RollupVersionKey | null): Promise<TenantDetection>;
  /** Tenants with rollups in the longest window a tenant may have: those a scheduled round detects for. */
  tenantsToDetect(): Promise<string[]>;
}

export interface AnomalyDetectorDeps {
  store: { rollups: RollupRepository; policies: PolicyRepository; anomalies: AnomalyRepository };
  settings: Pick<AnomalySettings, 'effective'>;
  audit: Pick<AuditRecorder, 'append'>;
  builtinModules: ReadonlySet<string>;
  /** How much one round may do per tenant (default: DEFAULT_DETECTION_BUDGET). */
  budget?: DetectionBudget;
  now?: () => Date;
  newId?: () => string;
  /** The claim this process stores new anomalies and its status changes under (default: a new one). */
  auditLease?: AuditOutboxLease;
  /** A record was written but its anomaly not marked: harmless (the follower marks it), worth a log line. */
  onAuditMarkError?: (error: unknown) => void;
}

export function observationOf(evidence: VersionEvidence, assessment: Assessment, at: Date): AnomalyObservation {
  const description = describeAnomaly(evidence, assessment);
  return {
    observedAt: at.toISOString(),
    severity: assessment.severity ?? 'LOW',
    summary: description.summary,
    metrics: assessment.metrics,
    recommendedActions: description.recommendedActions,
  };
}

/** Metrics that move with the clock alone; the summary states them, so it is not compared either. */
const WINDOW_METRICS = new Set(['windowStart', 'windowEnd']);

/**
 * A finding is unchanged when only its window moved: same severity, actions and numbers. It is
 * written again once the stored one is a window old, so `lastSeenAt` never lags by more than that.
 */
function isUnchanged(stored: AnomalyObservation, found: AnomalyObservation, windowMinutes: number): boolean {
  if (Date.parse(found.observedAt) - Date.parse(stored.observedAt) >= windowMinutes * MINUTE_MS) return false;
  if (stored.severity !== found.severity) return false;
  if (stored.recommendedActions.length !== found.recommendedActions.length || stored.recommendedActions.some((action, i) => action !== found.recommendedActions[i])) {
    return false;
  }
  const names = Object.keys(found.metrics).filter((name) => !WINDOW_METRICS.has(name));
  if (names.length !== Object.keys(stored.metrics).filter((name) => !WINDOW_METRICS.has(name)).length) return false;
  return names.every((name) => stored.metrics[name] === found.metrics[name]);
}

/**
 * Reads the tenant's rollups (never raw evaluations), assesses the versions evaluated in the window
 * with every rule, and keeps one live anomaly per key: a finding updates the live one (when it
 * changed), is suppressed within the cooldown after a dismissal, and otherwise opens the key's next
 * occurrence. An OPEN anomaly whose condition has stopped holding for long enough is resolved
 * (`resolveCleared`). A round assesses at most `versionsPerRound` versions and opens at most
 * `openedPerRound` anomalies, taking the versions in turn from where the previous round stopped
 * (version-rotation.ts), and gives the event loop a turn every few milliseconds.
 */
export function createAnomalyDetector(deps: AnomalyDetectorDeps): AnomalyDetector {
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? randomUUID;
  const budget = deps.budget ?? DEFAULT_DETECTION_BUDGET;
  const sources: EvidenceSources = { rollups: deps.store.rollups, policies: deps.store.policies, builtinModules: deps.builtinModules };
  const anomalies = deps.store.anomalies;
  const auditLease = deps.auditLease ?? newAuditOutboxLease();
  // A new anomaly is stored owing its ANOMALY_DETECTED record; should the append below fail (or
  // the process stop first), the audit outbox follower writes it (anomaly-audit-outbox.ts).
  const owedRecords = createOwedRecordWriter({
    audit: deps.audit,
    lease: auditLease,
    now,
    ...(deps.onAuditMarkError ? { onMarkError: deps.onAuditMarkError } : {}),
  });
  // An anomaly resolved here owes its ANOMALY_STATUS_CHANGED record the same way, as triage's do.
  const transitions = createAuditedTransitions({
    anomalies,
    audit: deps.audit,
    auditLease,
    now,
    ...(deps.onAuditMarkError ? { onAuditMarkError: deps.onAuditMarkError } : {}),
  });

  async function record(tenantId: string, key: AnomalyKey, observation: AnomalyObservation, at: Date, settings: DetectionSettings, mayOpen: boolean): Promise<FindingOutcome> {
    for (let attempt = 0; attempt < MAX_OPEN_ATTEMPTS; attempt += 1) {
      const latest = await anomalies.latest(tenantId, key);
      if (latest !== null && isLive(latest.status)) {
        if (isUnchanged(latest.observation, observation, settings.windowMinutes)) return 'unchanged';
        await anomalies.update(tenantId, latest.id, { observation });
        return 'updated';
      }
      if (latest?.status === 'DISMISSED' && latest.statusChangedAt !== null) {
        if (at.getTime() - Date.parse(latest.statusChangedAt) < settings.dismissCooldownHours * HOUR_MS) return 'suppressed';
      }
      if (!mayOpen) return 'deferred';
      const anomaly: StoredAnomaly = {
        ...key,
        id: newId(),
        occurrence: (latest?.occurrence ?? 0) + 1,
        detectedAt: at.toISOString(),
        observation,
        verification: null,
      };
      // A concurrent detection that opened the same occurrence wins; the next round updates its anomaly.
      const owed = { recordId: detectedRecordId(tenantId, anomaly.id), claim: owedRecords.claim(now()) };
      if (await anomalies.insert(tenantId, anomaly, owed)) {
        await owedRecords.write(anomalies, tenantId, { kind: 'detection', anomalyId: anomaly.id }, owed, detectedEvent(anomaly, DETECTOR_ACTOR));
        return 'opened';
      }
    }
    throw new AnomalyError(503, AnomalyErrorCode.CONTENDED, `anomaly ${key.type} of ${key.policyModule}@${key.version} stayed contended`);
  }

  /**
   * Resolves the tenant's OPEN anomalies whose condition has not held for `autoResolveMinutes`,
   * oldest observation first, at most `openedPerRound` of them. They are read from the store, not
   * from the versions this round assessed: a version rolled away from gets no traffic, so no round
   * assesses it again, yet its ZOMBIE_VERSION anomaly is one to resolve.
   *
   * When the condition last held: while a finding holds, each round that assesses it writes its
   * observation again unless it is unchanged, and an unchanged one is written again once the
   * stored one is a window old (`isUnchanged`). So the condition last held less than a window after
   * `observedAt`, and an observation older than `autoResolveMinutes` + `windowMinutes` means it
   * has not held for `autoResolveMinutes`. Measuring from the observation this way costs no write
   * per round, where keeping a `lastHeldAt` would write every live anomaly every round. A version
   * the rotation has not reached for a while (more versions than `versionsPerRound`) could still
   * hold, so each one is assessed again on the current window first: one that holds has its
   * observation written instead (`updated`).
   */
  async function resolveCleared(tenantId: string, at: Date, window: DetectionWindow, settings: DetectionSettings, report: TenantDetection, turn: TakeTurn): Promise<void> {
    if (settings.autoResolveMinutes === 0) return;
    const observedBefore = new Date(at.getTime() - (settings.autoResolveMinutes + settings.windowMinutes) * MINUTE_MS).toISOString();
    const cleared = await anomalies.openObservedBefore(tenantId, { observedBefore, limit: budget.openedPerRound });
    for (const anomaly of cleared) {
      const ref = { policyModule: anomaly.policyModule, policyFunction: anomaly.policyFunction, version: anomaly.version };
      const item = await readVersionEvidence(sources, tenantId, window, ref);
      const assessment = ASSESSORS[anomaly.type](item, window, settings);
      if (assessment.holds) {
        await anomalies.update(tenantId, anomaly.id, { observation: observationOf(item, assessment, at) });
        report.updated += 1;
      } else if (await resolve(tenantId, anomaly, at, window, settings)) {
        report.resolved += 1;
      }
      await turn();
    }
  }

  /** False when another change (triage, another round) took the anomaly's next status first. */
  async function resolve(tenantId: string, anomaly: AnomalyState, at: Date, window: DetectionWindow, settings: DetectionSettings): Promise<boolean> {
    const since = Date.parse(anomaly.observation.observedAt) + settings.windowMinutes * MINUTE_MS;
    const minutes = Math.floor((at.getTime() - since) / MINUTE_MS);
    const note =
      `resolved automatically: the condition has not held since ${new Date(since).toISOString()} (${minutes} minutes), ` +
      `nor between ${window.start} and ${window.end}`;
    return transitions.append(tenantId, anomaly, {
      anomalyId: anomaly.id,
      seq: anomaly.statusSeq + 1,
      from: anomaly.status,
      to: 'RESOLVED',
      note,
      actorId: DETECTOR_ACTOR,
      occurredAt: at.toISOString(),
    });
  }

  async function detectTenant(tenantId: string, after: RollupVersionKey | null = null): Promise<TenantDetection> {
    const turn = createTurnTaker();
    const at = now();
    const settings = await deps.settings.effective(tenantId);
    const window = detectionWindow(at, settings);
    const round = await readRoundEvidence(sources, tenantId, window, { after, limit: budget.versionsPerRound }, turn);
    const report: TenantDetection = {
      tenantId,
      windowStart: window.start,
      windowEnd: window.end,
      buckets: round.buckets,
      versions: round.versions,
      assessed: 0,
      opened: 0,
      updated: 0,
      unchanged: 0,
      suppressed: 0,
      resolved: 0,
      continueAfter: after,
    };
    assess: for (const item of round.evidence) {
      for (const assess of Object.values(ASSESSORS)) {
        const assessment = assess(item, window, settings);
        if (!assessment.holds) continue;
        const key: AnomalyKey = {
          type: assessment.type,
          policyModule: item.policyModule,
          policyFunction: item.policyFunction,
          version: item.version,
        };
        const outcome = await record(tenantId, key, observationOf(item, assessment, at), at, settings, report.opened < budget.openedPerRound);
        // The next round starts with this version again (what it recorded of it so far is found unchanged then).
        if (outcome === 'deferred') break assess;
        report[outcome] += 1;
      }
      report.assessed += 1;
      report.continueAfter = { policyModule: item.policyModule, policyFunction: item.policyFunction, version: item.version };
      await turn();
    }
    if (report.assessed === round.versions) report.continueAfter = null;
    // After the findings, so that an anomaly this round found again is seen with its new observation.
    await resolveCleared(tenantId, at, window, settings, report, turn);
    return report;
  }

  return {
    detectTenant,
    async tenantsToDetect() {
      const at = now();
      const from = new Date(at.getTime() - DETECTION_SETTING_BOUNDS.windowMinutes.max * MINUTE_MS).toISOString();
      return deps.store.rollups.tenantsWithBuckets(from, at.toISOString());
    },
  };
}

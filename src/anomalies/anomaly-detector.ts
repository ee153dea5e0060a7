import { randomUUID } from 'node:crypto';
import { createOwedRecordWriter, newAuditOutboxLease, type AuditChainWriter, type AuditOutboxLease } from '../audit/index.js';
import type { AnomalyKey, AnomalyObservation, Store, StoredAnomaly } from '../store/index.js';
import { detectedRecordId } from './anomaly-audit-ids.js';
import { AnomalyError, AnomalyErrorCode } from './anomaly-errors.js';
import { detectedEvent, DETECTOR_ACTOR } from './anomaly-events.js';
import type { AnomalySettings } from './anomaly-settings.js';
import { isLive } from './anomaly-status-rules.js';
import { describeAnomaly } from './anomaly-texts.js';
import type { Assessment, VersionEvidence } from './assessment.js';
import { ASSESSORS } from './detection-rules.js';
import { DETECTION_SETTING_BOUNDS } from './detection-settings.js';
import { detectionWindow, readEvidence, type EvidenceSources } from './evidence-reader.js';

const HOUR_MS = 3_600_000;
/** Rounds of "someone else opened it first" before a finding gives up; each round makes progress. */
const MAX_OPEN_ATTEMPTS = 8;

export type FindingOutcome = 'opened' | 'updated' | 'suppressed';

/** What one detection did for one tenant. */
export interface TenantDetection {
  tenantId: string;
  windowStart: string;
  windowEnd: string;
  /** Rollup buckets read (window and baseline). */
  buckets: number;
  /** Versions evaluated in the window, each assessed by every rule. */
  versions: number;
  opened: number;
  updated: number;
  /** Findings not opened again because their key was dismissed within the cooldown. */
  suppressed: number;
}

export interface DetectionRun {
  at: string;
  tenants: TenantDetection[];
  /** Tenants whose detection failed; the others are unaffected. */
  failures: Array<{ tenantId: string; error: string }>;
  durationMs: number;
}

export interface AnomalyDetector {
  /** Detects for one tenant (on demand, or as part of a scheduled run). */
  detectTenant(tenantId: string): Promise<TenantDetection>;
  /** Detects for every tenant with rollups in the longest window a tenant may have. */
  detectAll(): Promise<DetectionRun>;
}

export interface AnomalyDetectorDeps {
  store: Pick<Store, 'rollups' | 'policies' | 'anomalies'>;
  settings: Pick<AnomalySettings, 'effective'>;
  audit: Pick<AuditChainWriter, 'append'>;
  builtinModules: ReadonlySet<string>;
  now?: () => Date;
  newId?: () => string;
  /** The claim this process stores new anomalies under (default: a new one). */
  auditLease?: AuditOutboxLease;
  /** A record was written but its anomaly not marked: harmless (the follower marks it), worth a log line. */
  onAuditMarkError?: (error: unknown) => void;
  /** Receives the error of a tenant whose detection failed in `detectAll`. */
  onTenantError?: (tenantId: string, error: unknown) => void;
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

/**
 * Reads the tenant's rollups (never raw evaluations), assesses every version evaluated in the
 * window with every rule, and keeps one live anomaly per key: a finding updates the live one, is
 * suppressed within the cooldown after a dismissal, and otherwise opens the key's next occurrence.
 */
export function createAnomalyDetector(deps: AnomalyDetectorDeps): AnomalyDetector {
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? randomUUID;
  const sources: EvidenceSources = { rollups: deps.store.rollups, policies: deps.store.policies, builtinModules: deps.builtinModules };
  const anomalies = deps.store.anomalies;
  // A new anomaly is stored owing its ANOMALY_DETECTED record; should the append below fail (or
  // the process stop first), the audit outbox follower writes it (anomaly-audit-outbox.ts).
  const owedRecords = createOwedRecordWriter({
    audit: deps.audit,
    lease: deps.auditLease ?? newAuditOutboxLease(),
    now,
    ...(deps.onAuditMarkError ? { onMarkError: deps.onAuditMarkError } : {}),
  });

  async function record(tenantId: string, key: AnomalyKey, observation: AnomalyObservation, at: Date, cooldownHours: number): Promise<FindingOutcome> {
    for (let attempt = 0; attempt < MAX_OPEN_ATTEMPTS; attempt += 1) {
      const latest = await anomalies.latest(tenantId, key);
      if (latest !== null && isLive(latest.status)) {
        await anomalies.update(tenantId, latest.id, { observation });
        return 'updated';
      }
      if (latest?.status === 'DISMISSED' && latest.statusChangedAt !== null) {
        if (at.getTime() - Date.parse(latest.statusChangedAt) < cooldownHours * HOUR_MS) return 'suppressed';
      }
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

  async function detectTenant(tenantId: string): Promise<TenantDetection> {
    const at = now();
    const settings = await deps.settings.effective(tenantId);
    const window = detectionWindow(at, settings);
    const { evidence, buckets } = await readEvidence(sources, tenantId, window);
    const report: TenantDetection = {
      tenantId,
      windowStart: window.start,
      windowEnd: window.end,
      buckets,
      versions: evidence.length,
      opened: 0,
      updated: 0,
      suppressed: 0,
    };
    for (const item of evidence) {
      for (const assess of Object.values(ASSESSORS)) {
        const assessment = assess(item, window, settings);
        if (!assessment.holds) continue;
        const key: AnomalyKey = {
          type: assessment.type,
          policyModule: item.policyModule,
          policyFunction: item.policyFunction,
          version: item.version,
        };
        const outcome = await record(tenantId, key, observationOf(item, assessment, at), at, settings.dismissCooldownHours);
        report[outcome] += 1;
      }
    }
    return report;
  }

  return {
    detectTenant,
    async detectAll() {
      const started = now();
      const from = new Date(started.getTime() - DETECTION_SETTING_BOUNDS.windowMinutes.max * 60_000).toISOString();
      const tenantIds = await deps.store.rollups.tenantsWithBuckets(from, started.toISOString());
      const run: DetectionRun = { at: started.toISOString(), tenants: [], failures: [], durationMs: 0 };
      const clock = performance.now();
      for (const tenantId of tenantIds) {
        try {
          run.tenants.push(await detectTenant(tenantId));
        } catch (error) {
          deps.onTenantError?.(tenantId, error);
          run.failures.push({ tenantId, error: (error as Error).message });
        }
      }
      run.durationMs = performance.now() - clock;
      return run;
    },
  };
}

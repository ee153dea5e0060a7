import type { AuditRecorder, AuditOutboxLease } from '../audit/index.js';
import type { PolicyRepository } from '../policies/index.js';
import type { RollupRepository } from '../rollups/index.js';
import type { AnomalyStatus } from './anomaly-enums.js';
import { VERIFIER_ACTOR } from './anomaly-events.js';
import type { AnomalySettings } from './anomaly-settings.js';
import type { AnomalyRepository, AnomalyState, AnomalyTransition, AnomalyVerification } from './anomaly-store.js';
import type { VersionEvidence } from './assessment.js';
import { createAuditedTransitions } from './audited-transitions.js';
import { observationOf } from './anomaly-detector.js';
import { ASSESSORS } from './detection-rules.js';
import { detectionWindow, readVersionEvidence } from './evidence-reader.js';

/** What the `anomaly-verify` job carries: the anomaly and the seq of the change that made it VERIFYING. */
export interface VerificationRequest {
  tenantId: string;
  anomalyId: string;
  seq: number;
}

export interface VerificationOutcome {
  /** SKIPPED: the anomaly is no longer in the VERIFYING state this request was made for. */
  status: 'RESOLVED' | 'OPEN' | 'SKIPPED';
  reason: string;
}

export interface AnomalyVerifier {
  verify(request: VerificationRequest): Promise<VerificationOutcome>;
  /** The job failed for good: the anomaly goes back to OPEN (with the reason) instead of staying VERIFYING. */
  abandon(request: VerificationRequest, reason: string): Promise<void>;
}

export interface AnomalyVerifierDeps {
  store: { rollups: RollupRepository; policies: PolicyRepository; anomalies: AnomalyRepository };
  settings: Pick<AnomalySettings, 'effective'>;
  audit: Pick<AuditRecorder, 'append'>;
  /** The claim this process stores status changes under (default: a new one); see audited-transitions.ts. */
  auditLease?: AuditOutboxLease;
  /** A change's record was written but the change not marked: harmless, worth a log line. */
  onAuditMarkError?: (error: unknown) => void;
  builtinModules: ReadonlySet<string>;
  now?: () => Date;
}

/** The anomaly when it is still in the VERIFYING state the request names. */
async function pending(deps: AnomalyVerifierDeps, request: VerificationRequest): Promise<AnomalyState | null> {
  const anomaly = await deps.store.anomalies.get(request.tenantId, request.anomalyId);
  if (anomaly === null || anomaly.status !== 'VERIFYING' || anomaly.statusSeq !== request.seq) return null;
  return anomaly;
}

/**
 * Re-assesses an anomaly's rule on the latest window: still holding → OPEN; cleared, or the version
 * no longer evaluated at all → RESOLVED. What it found is kept on the anomaly and in the audit chain.
 */
export function createAnomalyVerifier(deps: AnomalyVerifierDeps): AnomalyVerifier {
  const now = deps.now ?? (() => new Date());
  const sources = { rollups: deps.store.rollups, policies: deps.store.policies, builtinModules: deps.builtinModules };
  const transitions = createAuditedTransitions({ ...deps, anomalies: deps.store.anomalies, now });

  async function leaveVerifying(
    tenantId: string,
    anomaly: AnomalyState,
    to: AnomalyStatus,
    note: string,
    at: Date,
    verification?: AnomalyVerification,
  ): Promise<boolean> {
    const transition: AnomalyTransition = {
      anomalyId: anomaly.id,
      seq: anomaly.statusSeq + 1,
      from: anomaly.status,
      to,
      note,
      actorId: VERIFIER_ACTOR,
      occurredAt: at.toISOString(),
      ...(verification ? { verification } : {}),
    };
    // Only one job holds a VERIFYING seq (the job id is derived from it); losing means it was settled.
    return transitions.append(tenantId, anomaly, transition);
  }

  return {
    async verify(request) {
      const anomaly = await pending(deps, request);
      if (anomaly === null) return { status: 'SKIPPED', reason: 'the anomaly is no longer being verified by this request' };
      const at = now();
      const settings = await deps.settings.effective(request.tenantId);
      const window = detectionWindow(at, settings);
      const ref = { policyModule: anomaly.policyModule, policyFunction: anomaly.policyFunction, version: anomaly.version };
      const item: VersionEvidence = await readVersionEvidence(sources, request.tenantId, window, ref);
      const assessment = ASSESSORS[anomaly.type](item, window, settings);
      const traffic = item.window?.count ?? 0;
      const reason = traffic === 0 ? 'NO_TRAFFIC' : assessment.holds ? 'CONDITION_HOLDS' : 'CONDITION_CLEARED';
      const outcome: 'OPEN' | 'RESOLVED' = reason === 'CONDITION_HOLDS' ? 'OPEN' : 'RESOLVED';
      const verification: AnomalyVerification = { verifiedAt: at.toISOString(), outcome, reason, metrics: assessment.metrics };
      await deps.store.anomalies.update(request.tenantId, anomaly.id, {
        verification,
        ...(outcome === 'OPEN' ? { observation: observationOf(item, assessment, at) } : {}),
      });
      const note = {
        NO_TRAFFIC: `verified: ${anomaly.policyModule}@${anomaly.version} was not evaluated between ${window.start} and ${window.end}`,
        CONDITION_HOLDS: `verified: the condition still holds between ${window.start} and ${window.end}`,
        CONDITION_CLEARED: `verified: the condition no longer holds between ${window.start} and ${window.end}`,
      }[reason];
      if (!(await leaveVerifying(request.tenantId, anomaly, outcome, note, at, verification))) {
        return { status: 'SKIPPED', reason: 'another change settled the verification first' };
      }
      return { status: outcome, reason };
    },

    async abandon(request, reason) {
      const anomaly = await pending(deps, request);
      if (anomaly === null) return;
      await leaveVerifying(request.tenantId, anomaly, 'OPEN', `verification failed: ${reason}`.slice(0, 1000), now());
    },
  };
}

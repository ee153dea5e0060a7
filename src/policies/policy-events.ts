import type { AuditEvent } from '../audit/index.js';
import { versionId } from './policy-id.js';
import type { PolicyActivation, PolicyActivationKind, PolicyModuleVersion } from './policy-store.js';

/** Audit event types of the registry (interface spec, Events). */
export const POLICY_DEPLOYED = 'POLICY_DEPLOYED';
export const POLICY_ROLLED_BACK = 'POLICY_ROLLED_BACK';
export const POLICY_ROLLOUT_STARTED = 'POLICY_ROLLOUT_STARTED';
export const POLICY_ROLLOUT_PROMOTED = 'POLICY_ROLLOUT_PROMOTED';
export const POLICY_ROLLOUT_ABORTED = 'POLICY_ROLLOUT_ABORTED';
export const POLICY_AUDIT_EVENT_TYPES = [POLICY_DEPLOYED, POLICY_ROLLED_BACK, POLICY_ROLLOUT_STARTED, POLICY_ROLLOUT_PROMOTED, POLICY_ROLLOUT_ABORTED] as const;

/** The record an activation owes, by its kind; a DEPLOY owes none (its version owes POLICY_DEPLOYED). */
export const ACTIVATION_EVENT_TYPES: Readonly<Record<Exclude<PolicyActivationKind, 'DEPLOY'>, string>> = {
  ROLLBACK: POLICY_ROLLED_BACK,
  ROLLOUT_STARTED: POLICY_ROLLOUT_STARTED,
  ROLLOUT_PROMOTED: POLICY_ROLLOUT_PROMOTED,
  ROLLOUT_ABORTED: POLICY_ROLLOUT_ABORTED,
};

/**
 * The records say what is stored: a deploy's record is made of the version and its DEPLOY
 * activation (null when it was never activated), a rollback's of its activation, and they are
 * dated by the change itself. So a record written late, by the follower, reads as one written at once.
 */
export function deployedEvent(version: PolicyModuleVersion, activation: PolicyActivation | null): AuditEvent {
  return {
    eventType: POLICY_DEPLOYED,
    policyModule: version.policyModule,
    policyFunction: null,
    actorId: version.actorId,
    occurredAt: version.createdAt,
    payload: {
      policyModule: version.policyModule,
      version: version.version,
      versionId: versionId(version.policyModule, version.version),
      functions: version.functions.map((f) => f.name),
      sourceHash: version.sourceHash,
      locale: version.locale,
      activated: activation !== null,
      previousVersion: activation?.previousVersion ?? null,
    },
  };
}

/** The record of a rollback or a rollout step, dated by the activation and made by its actor. */
export function activationEvent(activation: PolicyActivation): AuditEvent {
  if (activation.kind === 'DEPLOY') throw new Error('a DEPLOY activation owes no record of its own');
  const payload = activation.rollout === null ? rolledBackPayload(activation) : rolloutPayload(activation, activation.rollout);
  return {
    eventType: ACTIVATION_EVENT_TYPES[activation.kind],
    policyModule: activation.policyModule,
    policyFunction: null,
    actorId: activation.actorId,
    occurredAt: activation.occurredAt,
    payload,
  };
}

/** The stable version of a rollout step: the one answering while it runs, and after an abort. */
function stableVersionOf(activation: PolicyActivation): number {
  return activation.kind === 'ROLLOUT_PROMOTED' ? activation.previousVersion ?? 0 : activation.version;
}

function rolloutPayload(activation: PolicyActivation, rollout: NonNullable<PolicyActivation['rollout']>) {
  const { policyModule } = activation;
  const stableVersion = stableVersionOf(activation);
  return {
    policyModule,
    rollout: rollout.startedSeq,
    version: rollout.version,
    versionId: versionId(policyModule, rollout.version),
    stableVersion,
    stableVersionId: versionId(policyModule, stableVersion),
    mode: rollout.mode,
    percent: rollout.percent,
    stickyKey: rollout.stickyKey,
    reason: rollout.reason,
    anomalyId: rollout.anomalyId,
  };
}

function rolledBackPayload(activation: PolicyActivation) {
  const { policyModule, version, previousVersion } = activation;
  return {
    policyModule,
    version,
    versionId: versionId(policyModule, version),
    previousVersion,
    previousVersionId: previousVersion === null ? null : versionId(policyModule, previousVersion),
  };
}

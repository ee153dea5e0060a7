import type { AuditEvent } from '../audit/index.js';
import { versionId } from './policy-id.js';
import type { PolicyActivation, PolicyModuleVersion } from './policy-store.js';

/** Audit event types of the registry (interface spec, Events). */
export const POLICY_DEPLOYED = 'POLICY_DEPLOYED';
export const POLICY_ROLLED_BACK = 'POLICY_ROLLED_BACK';
export const POLICY_AUDIT_EVENT_TYPES = [POLICY_DEPLOYED, POLICY_ROLLED_BACK] as const;

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

export function rolledBackEvent(activation: PolicyActivation): AuditEvent {
  const { policyModule, version, previousVersion } = activation;
  return {
    eventType: POLICY_ROLLED_BACK,
    policyModule,
    policyFunction: null,
    actorId: activation.actorId,
    occurredAt: activation.occurredAt,
    payload: {
      policyModule,
      version,
      versionId: versionId(policyModule, version),
      previousVersion,
      previousVersionId: previousVersion === null ? null : versionId(policyModule, previousVersion),
    },
  };
}

import type { AuditEvent } from '../audit/index.js';
import type { PolicyActivation, PolicyModuleVersion } from '../store/index.js';
import { versionId } from './policy-id.js';

/** Audit event types of the registry (interface spec, Events). */
export const POLICY_DEPLOYED = 'POLICY_DEPLOYED';
export const POLICY_ROLLED_BACK = 'POLICY_ROLLED_BACK';

export function deployedEvent(actorId: string, version: PolicyModuleVersion, activation: PolicyActivation | null): AuditEvent {
  return {
    eventType: POLICY_DEPLOYED,
    policyModule: version.policyModule,
    policyFunction: null,
    actorId,
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

export function rolledBackEvent(actorId: string, activation: PolicyActivation): AuditEvent {
  const { policyModule, version, previousVersion } = activation;
  return {
    eventType: POLICY_ROLLED_BACK,
    policyModule,
    policyFunction: null,
    actorId,
    payload: {
      policyModule,
      version,
      versionId: versionId(policyModule, version),
      previousVersion,
      previousVersionId: previousVersion === null ? null : versionId(policyModule, previousVersion),
    },
  };
}

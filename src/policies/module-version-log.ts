import type { AuditClaim, OwedAudit } from '../audit/index.js';
import { PolicyContentionError } from './policy-errors.js';
import type { PolicyActivation, PolicyFunctionSignature, PolicyModuleVersion, PolicyRepository } from './policy-store.js';
import { deployedRecordId, rolledBackRecordId } from './registry-audit-ids.js';

/**
 * Deploy and rollback on top of the insert-only PolicyRepository, fork-proof without
 * transactions, like the audit chain: a version number or activation seq is claimed by inserting
 * it; a duplicate key means another writer won, so the state is re-read and the step redone.
 *
 * Which version is active is the version named by the module's newest activation. A deploy first
 * stores its version (numbers are unique and contiguous), then appends its activation — unless a
 * concurrent deploy of a higher version was activated meanwhile: the highest deployed version wins,
 * and the lower one is recorded as never active (SUPERSEDED). A deploy stopped between the two steps
 * leaves a stored, inactive version that a rollback can still activate.
 *
 * Given an audit claim, the version (deploy) or the activation (rollback) is stored owing its audit
 * record, claimed by the caller: the registry's log is the outbox of its audit records.
 */

export const DEFAULT_MAX_ATTEMPTS = 100;

export interface DeployVersionInput {
  policyModule: string;
  source: string;
  locale: string;
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  actorId: string;
  at: Date;
  /** What is active while the module has no activation: 0 when a built-in module has its name, else null. */
  initialVersion: 0 | null;
  /** When given, the version is stored owing its POLICY_DEPLOYED record, under this claim. */
  auditClaim?: AuditClaim;
}

export interface DeployVersionOutcome {
  version: PolicyModuleVersion;
  /** Null when a concurrent deploy of a higher version was activated first. */
  activation: PolicyActivation | null;
  /** The id of the owed POLICY_DEPLOYED record; null without an audit claim. */
  auditRecordId: string | null;
}

function owedAudit(claim: AuditClaim | undefined, recordId: () => string): OwedAudit | undefined {
  return claim === undefined ? undefined : { recordId: recordId(), claim };
}

export interface LogOptions {
  /** Lost races tolerated per step before giving up with PolicyContentionError. */
  maxAttempts?: number;
}

export async function deployModuleVersion(
  repository: PolicyRepository,
  tenantId: string,
  input: DeployVersionInput,
  options: LogOptions = {},
): Promise<DeployVersionOutcome> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const at = input.at.toISOString();
  let stored: PolicyModuleVersion | null = null;
  let owed: OwedAudit | undefined;
  for (let attempt = 0; stored === null; attempt += 1) {
    if (attempt >= maxAttempts) throw new PolicyContentionError(input.policyModule, attempt);
    const candidate: PolicyModuleVersion = {
      policyModule: input.policyModule,
      version: (await repository.latestVersion(tenantId, input.policyModule)) + 1,
      source: input.source,
      locale: input.locale,
      sourceHash: input.sourceHash,
      functions: input.functions,
      actorId: input.actorId,
      createdAt: at,
    };
    owed = owedAudit(input.auditClaim, () => deployedRecordId(tenantId, input.policyModule, candidate.version));
    if (await repository.insertVersion(tenantId, candidate, owed)) stored = candidate;
  }
  const version = stored.version;
  const auditRecordId = owed?.recordId ?? null;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt >= maxAttempts) throw new PolicyContentionError(input.policyModule, attempt);
    const head = await repository.headActivation(tenantId, input.policyModule);
    if (head !== null && head.highestDeployed > version) return { version: stored, activation: null, auditRecordId };
    const activation: PolicyActivation = {
      policyModule: input.policyModule,
      seq: (head?.seq ?? 0) + 1,
      kind: 'DEPLOY',
      version,
      previousVersion: head === null ? input.initialVersion : head.version,
      highestDeployed: Math.max(head?.highestDeployed ?? 0, version),
      actorId: input.actorId,
      occurredAt: at,
    };
    if (await repository.appendActivation(tenantId, activation)) return { version: stored, activation, auditRecordId };
  }
}

export interface ActivateVersionInput {
  policyModule: string;
  /** A stored version, or 0 for the built-in module (the caller checks it exists). */
  version: number;
  actorId: string;
  at: Date;
  initialVersion: 0 | null;
  /** When given, the activation is stored owing its POLICY_ROLLED_BACK record, under this claim. */
  auditClaim?: AuditClaim;
}

export type ActivateVersionOutcome =
  | { activated: true; activation: PolicyActivation; /** Null without an audit claim. */ auditRecordId: string | null }
  | { activated: false; activeVersion: number };

/** Makes `version` the active one (a rollback); refuses when it already is. */
export async function activateModuleVersion(
  repository: PolicyRepository,
  tenantId: string,
  input: ActivateVersionInput,
  options: LogOptions = {},
): Promise<ActivateVersionOutcome> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt >= maxAttempts) throw new PolicyContentionError(input.policyModule, attempt);
    const head = await repository.headActivation(tenantId, input.policyModule);
    const active = head === null ? input.initialVersion : head.version;
    if (active === input.version) return { activated: false, activeVersion: active };
    const activation: PolicyActivation = {
      policyModule: input.policyModule,
      seq: (head?.seq ?? 0) + 1,
      kind: 'ROLLBACK',
      version: input.version,
      previousVersion: active,
      highestDeployed: head?.highestDeployed ?? 0,
      actorId: input.actorId,
      occurredAt: input.at.toISOString(),
    };
    const owed = owedAudit(input.auditClaim, () => rolledBackRecordId(tenantId, input.policyModule, activation.seq));
    if (await repository.appendActivation(tenantId, activation, owed)) {
      return { activated: true, activation, auditRecordId: owed?.recordId ?? null };
    }
  }
}

export interface ModuleState {
  /** The active version (0: built-in); null when none is. */
  active: number | null;
  /** When each version last changed status (activated or superseded). */
  changedAt: Map<number, string>;
}

/** The state a module's activations (ascending seq) describe. */
export function moduleState(activations: readonly PolicyActivation[], initialVersion: 0 | null): ModuleState {
  const changedAt = new Map<number, string>();
  let active: number | null = initialVersion;
  for (const a of activations) {
    if (a.previousVersion !== null && a.previousVersion !== a.version) changedAt.set(a.previousVersion, a.occurredAt);
    changedAt.set(a.version, a.occurredAt);
    active = a.version;
  }
  return { active, changedAt };
}

import type { AuditClaim, OwedAudit } from '../audit/index.js';
import { PolicyContentionError } from './policy-errors.js';
import type { PolicyActivation, PolicyFunctionSignature, PolicyModuleVersion, PolicyRepository, RolloutTerms } from './policy-store.js';
import { activationRecordId, deployedRecordId } from './registry-audit-ids.js';

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
  /**
   * When given, the version is not activated: a ROLLOUT_STARTED activation (owing its record under
   * the same claim) starts its rollout against the active version.
   */
  rollout?: RolloutPlan;
}

/** A rollout's terms as a deploy asks for them. */
export type RolloutPlan = Pick<RolloutTerms, 'mode' | 'percent' | 'stickyKey' | 'captureContexts'>;

export interface DeployVersionOutcome {
  version: PolicyModuleVersion;
  /**
   * The DEPLOY activation, or the ROLLOUT_STARTED one of a rollout; null when a concurrent deploy
   * of a higher version was activated first, or a rollout was running (see `blockedBy`).
   */
  activation: PolicyActivation | null;
  /** The id of the owed POLICY_DEPLOYED record; null without an audit claim. */
  auditRecordId: string | null;
  /** The id of the owed POLICY_ROLLOUT_STARTED record; null without a rollout or an audit claim. */
  rolloutRecordId: string | null;
  /** Why the version was stored but not activated nor rolled out: a rollout was running, or no version was active to roll out against. */
  blockedBy: 'rollout-running' | 'no-active-version' | null;
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
  const outcome = (activation: PolicyActivation | null, rolloutRecordId: string | null, blockedBy: DeployVersionOutcome['blockedBy'] = null) => ({
    version: stored,
    activation,
    auditRecordId,
    rolloutRecordId,
    blockedBy,
  });
  for (let attempt = 0; ; attempt += 1) {
    if (attempt >= maxAttempts) throw new PolicyContentionError(input.policyModule, attempt);
    const head = await repository.headActivation(tenantId, input.policyModule);
    if (head?.kind === 'ROLLOUT_STARTED') return outcome(null, null, 'rollout-running');
    if (head !== null && head.highestDeployed > version) return outcome(null, null);
    const active = head === null ? input.initialVersion : head.version;
    const base = { policyModule: input.policyModule, seq: (head?.seq ?? 0) + 1, actorId: input.actorId, occurredAt: at };
    if (input.rollout !== undefined) {
      if (active === null) return outcome(null, null, 'no-active-version');
      const activation: PolicyActivation = {
        ...base,
        kind: 'ROLLOUT_STARTED',
        version: active,
        previousVersion: active,
        highestDeployed: head?.highestDeployed ?? 0,
        rollout: { ...input.rollout, version, startedSeq: base.seq, reason: null, anomalyId: null },
      };
      const rolloutOwed = owedAudit(input.auditClaim, () => activationRecordId('ROLLOUT_STARTED', tenantId, input.policyModule, base.seq));
      if (await repository.appendActivation(tenantId, activation, rolloutOwed)) return outcome(activation, rolloutOwed?.recordId ?? null);
      continue;
    }
    const activation: PolicyActivation = {
      ...base,
      kind: 'DEPLOY',
      version,
      previousVersion: active,
      highestDeployed: Math.max(head?.highestDeployed ?? 0, version),
      rollout: null,
    };
    if (await repository.appendActivation(tenantId, activation)) return outcome(activation, null);
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
  | { activated: false; activeVersion: number | null; /** A rollout runs: it ends first (promote or abort). */ rolloutRunning: boolean };

/** Makes `version` the active one (a rollback); refuses when it already is, or while a rollout runs. */
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
    if (head?.kind === 'ROLLOUT_STARTED') return { activated: false, activeVersion: active, rolloutRunning: true };
    if (active === input.version) return { activated: false, activeVersion: active, rolloutRunning: false };
    const activation: PolicyActivation = {
      policyModule: input.policyModule,
      seq: (head?.seq ?? 0) + 1,
      kind: 'ROLLBACK',
      version: input.version,
      previousVersion: active,
      highestDeployed: head?.highestDeployed ?? 0,
      actorId: input.actorId,
      occurredAt: input.at.toISOString(),
      rollout: null,
    };
    const owed = owedAudit(input.auditClaim, () => activationRecordId('ROLLBACK', tenantId, input.policyModule, activation.seq));
    if (await repository.appendActivation(tenantId, activation, owed)) {
      return { activated: true, activation, auditRecordId: owed?.recordId ?? null };
    }
  }
}

export interface EndRolloutInput {
  policyModule: string;
  /** PROMOTED makes the rollout's version active; ABORTED leaves the stable one answering alone. */
  outcome: 'PROMOTED' | 'ABORTED';
  /** Ends only this rollout (its ROLLOUT_STARTED seq); absent: whichever runs. */
  startedSeq?: number;
  reason: string;
  anomalyId?: string | null;
  actorId: string;
  at: Date;
  /** When given, the step is stored owing its POLICY_ROLLOUT_PROMOTED / _ABORTED record, under this claim. */
  auditClaim?: AuditClaim;
}

export type EndRolloutOutcome =
  | { ended: true; activation: PolicyActivation; auditRecordId: string | null }
  /** No rollout runs (or not the one named): `head` is the module's newest activation. */
  | { ended: false; head: PolicyActivation | null };

/** Promotes or aborts the module's running rollout; of concurrent enders exactly one wins. */
export async function endRollout(repository: PolicyRepository, tenantId: string, input: EndRolloutInput, options: LogOptions = {}): Promise<EndRolloutOutcome> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const kind = input.outcome === 'PROMOTED' ? 'ROLLOUT_PROMOTED' : 'ROLLOUT_ABORTED';
  for (let attempt = 0; ; attempt += 1) {
    if (attempt >= maxAttempts) throw new PolicyContentionError(input.policyModule, attempt);
    const head = await repository.headActivation(tenantId, input.policyModule);
    const running = head?.kind === 'ROLLOUT_STARTED' ? head.rollout : null;
    if (head === null || running === null || (input.startedSeq !== undefined && running.startedSeq !== input.startedSeq)) {
      return { ended: false, head };
    }
    const promoted = kind === 'ROLLOUT_PROMOTED';
    const activation: PolicyActivation = {
      policyModule: input.policyModule,
      seq: head.seq + 1,
      kind,
      version: promoted ? running.version : head.version,
      previousVersion: head.version,
      highestDeployed: promoted ? Math.max(head.highestDeployed, running.version) : head.highestDeployed,
      actorId: input.actorId,
      occurredAt: input.at.toISOString(),
      rollout: { ...running, reason: input.reason, anomalyId: input.anomalyId ?? null },
    };
    const owed = owedAudit(input.auditClaim, () => activationRecordId(kind, tenantId, input.policyModule, activation.seq));
    if (await repository.appendActivation(tenantId, activation, owed)) return { ended: true, activation, auditRecordId: owed?.recordId ?? null };
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
    // A rollout's start and abort leave the active version as it was.
    if (a.previousVersion === a.version && a.rollout !== null) continue;
    if (a.previousVersion !== null && a.previousVersion !== a.version) changedAt.set(a.previousVersion, a.occurredAt);
    changedAt.set(a.version, a.occurredAt);
    active = a.version;
  }
  return { active, changedAt };
}

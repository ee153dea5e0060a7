import { isName, MAX_NAME_LENGTH } from '../kernel/index.js';
import { PolicyLogError } from '../policies/policy-log-error.js';
import {
  POLICY_ACTIVATION_KINDS,
  ROLLOUT_MODES,
  type AuditedRegistryEntry,
  type PolicyActivation,
  type PolicyModuleVersion,
  type PolicyRuleQuery,
  type RolloutTerms,
  type RunningRolloutQuery,
} from '../policies/policy-store.js';
import { StoreArgumentError } from './store-argument-error.js';
import { compareText, normaliseInstant } from './store-rules.js';

/** Checks shared by both adapters for policies, so they refuse exactly the same input. */

const KINDS = new Set<string>(POLICY_ACTIVATION_KINDS);

export function assertPolicyName(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || !isName(value)) {
    throw new StoreArgumentError(`${field} must be a well-formed string of 1 to ${MAX_NAME_LENGTH} characters`);
  }
}

export function assertCount(value: unknown, field: string, min: number): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new StoreArgumentError(`${field} must be a whole number of at least ${min}`);
  }
}

export function assertModuleVersion(version: PolicyModuleVersion): void {
  assertPolicyName(version.policyModule, 'policyModule');
  assertCount(version.version, 'version', 1);
  for (const field of ['source', 'locale', 'sourceHash', 'actorId'] as const) {
    if (typeof version[field] !== 'string') throw new StoreArgumentError(`${field} must be a string`);
  }
  if (!Array.isArray(version.functions)) throw new StoreArgumentError('functions must be an array');
  for (const f of version.functions) assertPolicyName((f as { name?: unknown } | null)?.name, 'a function\'s name');
  normaliseInstant(version.createdAt, 'createdAt');
}

export function assertActivation(activation: PolicyActivation): void {
  assertPolicyName(activation.policyModule, 'policyModule');
  assertCount(activation.seq, 'seq', 1);
  assertCount(activation.version, 'version', 0);
  assertCount(activation.highestDeployed, 'highestDeployed', 0);
  if (activation.previousVersion !== null) assertCount(activation.previousVersion, 'previousVersion', 0);
  if (!KINDS.has(activation.kind)) throw new StoreArgumentError(`kind must be one of ${POLICY_ACTIVATION_KINDS.join(', ')}`);
  if (typeof activation.actorId !== 'string') throw new StoreArgumentError('actorId must be a string');
  normaliseInstant(activation.occurredAt, 'occurredAt');
  const isRolloutStep = activation.kind.startsWith('ROLLOUT_');
  if (!isRolloutStep && activation.rollout !== null) throw new StoreArgumentError(`a ${activation.kind} activation has no rollout`);
  if (isRolloutStep) assertRolloutTerms(activation.rollout);
}

function assertRolloutTerms(terms: RolloutTerms | null): void {
  if (terms === null || typeof terms !== 'object') throw new StoreArgumentError('a rollout step names its rollout');
  assertCount(terms.version, 'rollout.version', 1);
  assertCount(terms.startedSeq, 'rollout.startedSeq', 1);
  if (!(ROLLOUT_MODES as readonly string[]).includes(terms.mode)) throw new StoreArgumentError(`rollout.mode must be one of ${ROLLOUT_MODES.join(', ')}`);
  if (!Number.isInteger(terms.percent) || terms.percent < 1 || terms.percent > 100) throw new StoreArgumentError('rollout.percent must be a whole number from 1 to 100');
  if (terms.stickyKey !== null && typeof terms.stickyKey !== 'string') throw new StoreArgumentError('rollout.stickyKey must be a string or null');
  if (typeof terms.captureContexts !== 'boolean') throw new StoreArgumentError('rollout.captureContexts must be a boolean');
  for (const field of ['reason', 'anomalyId'] as const) {
    if (terms[field] !== null && typeof terms[field] !== 'string') throw new StoreArgumentError(`rollout.${field} must be a string or null`);
  }
}

/** The rollout guard's page of running rollouts. */
export function assertRunningRolloutQuery(query: RunningRolloutQuery): void {
  assertCount(query?.limit, 'limit', 1);
  if (query.after !== undefined) {
    if (typeof query.after?.tenantId !== 'string') throw new StoreArgumentError('after.tenantId must be a string');
    assertPolicyName(query.after.policyModule, 'after.policyModule');
  }
}

export function assertAuditedEntry(entry: AuditedRegistryEntry): void {
  assertPolicyName(entry?.policyModule, 'policyModule');
  if (entry.kind === 'version') assertCount(entry.version, 'version', 1);
  else if (entry.kind === 'activation') assertCount(entry.seq, 'seq', 1);
  else throw new StoreArgumentError('entry kind must be version or activation');
}

/** A page of a list: how many to skip, and at most how many to return. */
export function assertPage(page: { offset: number; limit: number }): void {
  assertCount(page?.offset, 'offset', 0);
  assertCount(page.limit, 'limit', 0);
}

/** A rule listing's query, checked alike by both adapters. */
export function assertRuleQuery(query: PolicyRuleQuery): void {
  if (query.policyModule !== undefined) assertPolicyName(query.policyModule, 'policyModule');
  if (query.active !== undefined && typeof query.active !== 'boolean') throw new StoreArgumentError('active must be true, false or absent');
  assertPage(query);
}

/** The registry's order of owed entries after claim and tenant: module, kind, number. */
export function compareRegistryEntries(a: AuditedRegistryEntry, b: AuditedRegistryEntry): number {
  const number = (e: AuditedRegistryEntry) => (e.kind === 'version' ? e.version : e.seq);
  return compareText(a.policyModule, b.policyModule) || compareText(a.kind, b.kind) || number(a) - number(b);
}

/** A version other than 1 sits on its predecessor, so the numbers stay contiguous. */
export function assertVersionExtends(tenantId: string, version: PolicyModuleVersion, predecessorExists: boolean): void {
  if (version.version > 1 && !predecessorExists) {
    throw new PolicyLogError(tenantId, version.policyModule, `version ${version.version - 1} does not exist`);
  }
}

/**
 * An activation other than seq 1 sits on its stored predecessor and says which version it
 * replaces; the version it activates is stored (0, the built-in, is the caller's to know).
 */
export function assertActivationExtends(
  tenantId: string,
  activation: PolicyActivation,
  predecessor: PolicyActivation | null,
  versionExists: boolean,
): void {
  if (activation.seq > 1) {
    if (predecessor === null) {
      throw new PolicyLogError(tenantId, activation.policyModule, `activation ${activation.seq - 1} does not exist`);
    }
    if (activation.previousVersion !== predecessor.version) {
      throw new PolicyLogError(
        tenantId,
        activation.policyModule,
        `activation ${activation.seq} names previous version ${String(activation.previousVersion)}, but ${predecessor.version} is active`,
      );
    }
    if (activation.highestDeployed < predecessor.highestDeployed) {
      throw new PolicyLogError(tenantId, activation.policyModule, `activation ${activation.seq} lowers highestDeployed`);
    }
  }
  if (activation.version > 0 && !versionExists) {
    throw new PolicyLogError(tenantId, activation.policyModule, `version ${activation.version} does not exist`);
  }
}

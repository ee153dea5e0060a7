import { ClientError } from '../errors/index.js';
import type { Diagnostic } from '../language/index.js';
import type { CaseFailure } from './module-tests.js';

/** Stable codes of the policy registry (`ERR_POLICY_*`). */
export const PolicyErrorCode = {
  /** 400: the request body is not what the endpoint takes. */
  REQUEST_INVALID: 'ERR_POLICY_REQUEST_INVALID',
  /** 400: the deployed module defines more rules than MAX_RULES_PER_MODULE. */
  TOO_MANY_RULES: 'ERR_POLICY_TOO_MANY_RULES',
  /** 409: the tenant has stored MAX_VERSIONS_PER_TENANT versions; no deploy adds another. */
  VERSION_QUOTA_EXCEEDED: 'ERR_POLICY_VERSION_QUOTA_EXCEEDED',
  /** 400: the deployed source does not compile; the response carries the diagnostics. */
  COMPILE: 'ERR_POLICY_COMPILE',
  /** 404: the tenant has no module of that name and the service has no built-in one. */
  MODULE_NOT_FOUND: 'ERR_POLICY_NOT_FOUND',
  /** 404: the module exists, but not in that version. */
  VERSION_NOT_FOUND: 'ERR_POLICY_VERSION_NOT_FOUND',
  /** 404: the module version has no rule of that name. */
  FUNCTION_NOT_FOUND: 'ERR_POLICY_FUNCTION_NOT_FOUND',
  /** 404: the module has versions, but none is active (its only deploy did not finish). */
  NO_ACTIVE_VERSION: 'ERR_POLICY_NO_ACTIVE_VERSION',
  /** 409: a rollback to the version that is already active. */
  VERSION_ALREADY_ACTIVE: 'ERR_POLICY_VERSION_ALREADY_ACTIVE',
  /** 422: a case of the deploy's tests did not pass; the response lists the failures. */
  TESTS_FAILED: 'ERR_POLICY_TESTS_FAILED',
  /** 409: a rollout of the module runs; deploys, rollbacks and other rollouts wait for its promotion or abort. */
  ROLLOUT_IN_PROGRESS: 'ERR_POLICY_ROLLOUT_IN_PROGRESS',
  /** 409: a rollout needs an active version to compare with, and the module has none. */
  ROLLOUT_NO_STABLE_VERSION: 'ERR_POLICY_ROLLOUT_NO_STABLE_VERSION',
  /** 409: promote or abort while no rollout of the module runs. */
  ROLLOUT_NOT_RUNNING: 'ERR_POLICY_ROLLOUT_NOT_RUNNING',
  /** 404: the module never had a rollout. */
  ROLLOUT_NOT_FOUND: 'ERR_POLICY_ROLLOUT_NOT_FOUND',
  /** 503: racing writers kept taking the numbers this operation needed. */
  CONTENDED: 'ERR_POLICY_CONTENDED',
} as const;

/** A refusal of the registry that the client sees as it is. */
export class PolicyRegistryError extends ClientError {
  override readonly name: string = 'PolicyRegistryError';
}

/** A deploy whose source does not compile (400); the route adds the diagnostics to the envelope. */
export class PolicyCompileError extends PolicyRegistryError {
  override readonly name = 'PolicyCompileError';
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    super(400, PolicyErrorCode.COMPILE, `the policy source does not compile (${errors} error${errors === 1 ? '' : 's'}); see \`diagnostics\``);
  }
}

/** A deploy whose tests did not all pass (422): nothing was stored; the route adds the failures. */
export class PolicyTestsFailedError extends PolicyRegistryError {
  override readonly name = 'PolicyTestsFailedError';
  constructor(
    readonly failures: readonly CaseFailure[],
    cases: number,
  ) {
    super(422, PolicyErrorCode.TESTS_FAILED, `${failures.length} of the ${cases} test cases failed; nothing was deployed (see \`failures\`)`);
  }
}

/** Racing writers took the version numbers or activation seqs this operation needed, too many times. */
export class PolicyContentionError extends PolicyRegistryError {
  override readonly name = 'PolicyContentionError';
  constructor(policyModule: string, attempts: number) {
    super(503, PolicyErrorCode.CONTENDED, `policy module \`${policyModule}\` is being changed by other writers; gave up after ${attempts} attempts, retry later`);
  }
}

/** A module's running rollout stands in the way (409): named, so the caller knows what to end. */
export class RolloutInProgressError extends PolicyRegistryError {
  override readonly name = 'RolloutInProgressError';
  constructor(policyModule: string, version: number, what: string) {
    super(
      409,
      PolicyErrorCode.ROLLOUT_IN_PROGRESS,
      `a rollout of version ${version} of policy module \`${policyModule}\` is running; ${what} waits until it is promoted or aborted (POST /api/v1/policies/${policyModule}/rollout/promote or /abort)`,
    );
  }
}

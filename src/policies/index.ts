export {
  BuiltinLibraryError,
  defaultPolicyDirectory,
  loadBuiltinLibrary,
  POLICY_FILE_EXTENSION,
  type BuiltinModule,
} from './builtin-library.js';
export {
  createPolicyRegistry,
  POLICY_STATUSES,
  type DeployRequest,
  type DeployResult,
  type ModuleVersionRecord,
  type PolicyListFilter,
  type PolicyRecord,
  type PolicyRegistry,
  type PolicyRegistryDeps,
  type PolicyStatus,
  type RollbackResult,
  type StoredEvaluation,
} from './policy-registry.js';
export { PolicyCompileError, PolicyContentionError, PolicyErrorCode, PolicyRegistryError } from './policy-errors.js';
export { parsePolicyId, policyId, versionId, type ParsedPolicyId } from './policy-id.js';
export { POLICY_DEPLOYED, POLICY_EVALUATED, POLICY_ROLLED_BACK } from './policy-events.js';
export {
  activateModuleVersion,
  deployModuleVersion,
  moduleState,
  DEFAULT_MAX_ATTEMPTS,
  type ActivateVersionInput,
  type ActivateVersionOutcome,
  type DeployVersionInput,
  type DeployVersionOutcome,
  type ModuleState,
} from './module-version-log.js';
export { createRollupRecorder, minuteOf, type RollupRecorder, type RollupRecorderOptions, type RollupSample } from './rollup-recorder.js';
export { createStoredPolicyResolver } from './stored-policy-resolver.js';
export { createPolicyLookup, type PolicyLookup, type PolicyLookupView } from './policy-lookup.js';
export { createDomainDecider, type DomainDecider, type DomainDeciderOptions } from './domain-decider.js';

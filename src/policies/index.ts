export {
  BuiltinLibraryError,
  defaultPolicyDirectory,
  loadBuiltinLibrary,
  POLICY_FILE_EXTENSION,
  type BuiltinModule,
} from './builtin-library.js';
export { createBuiltinVersions, type BuiltinVersion, type BuiltinVersions } from './builtin-versions.js';
export {
  createPolicyCatalog,
  POLICY_STATUSES,
  type DeployRequest,
  type DeployResult,
  type ModuleVersionRecord,
  type PolicyCatalog,
  type PolicyCatalogDeps,
  type PolicyDetail,
  type PolicyListFilter,
  type PolicyListPage,
  type PolicyListRequest,
  type PolicyPage,
  type PolicyRecord,
  type PolicyStatus,
  type RollbackResult,
  type VersionSource,
} from './policy-catalog.js';
export {
  MAX_RULES_PER_MODULE,
  MAX_VERSIONS_PER_TENANT,
  POLICY_PAGE_DEFAULT_SIZE,
  POLICY_PAGE_MAX_PAGE,
  POLICY_PAGE_MAX_SIZE,
} from './policy-bounds.js';
export { createSourceTranslator, type SourceTranslator, type SourceTranslatorOptions } from './source-translator.js';
export type { SourceFormatter } from './engine-work.js';
export { createVersionResolver, DEFAULT_ACTIVE_VERSION_CACHE_MS, type VersionResolver } from './version-resolver.js';
export { createRedisActivationNotices, type ActivationChange, type ActivationNotices } from './activation-notices.js';
export {
  PolicyCompileError,
  PolicyContentionError,
  PolicyErrorCode,
  PolicyRegistryError,
  PolicyTestsFailedError,
  RolloutInProgressError,
} from './policy-errors.js';
export {
  createRedisRolloutTally,
  SHADOW_SAMPLE_SIZE,
  type RoutedSide,
  type ShadowCounts,
  type ShadowReport,
  type SharedRolloutTally,
} from './rollout-tally.js';
export {
  createRolloutControl,
  ROLLOUT_STATUSES,
  type RolloutControl,
  type RolloutStatus,
  type RolloutVersionStats,
  type RolloutView,
} from './rollout-control.js';
export { parsePolicyId, policyId, versionId, type ParsedPolicyId } from './policy-id.js';
export { POLICY_AUDIT_EVENT_TYPES, POLICY_DEPLOYED, POLICY_ROLLED_BACK, POLICY_ROLLOUT_ABORTED, POLICY_ROLLOUT_PROMOTED, POLICY_ROLLOUT_STARTED } from './policy-events.js';
export {
  activateModuleVersion,
  deployModuleVersion,
  endRollout,
  moduleState,
  DEFAULT_MAX_ATTEMPTS,
  type ActivateVersionInput,
  type ActivateVersionOutcome,
  type DeployVersionInput,
  type DeployVersionOutcome,
  type ModuleState,
  type RolloutPlan,
} from './module-version-log.js';
export { createPolicyLookup, type PolicyLookup, type PolicyLookupPage, type PolicyLookupView } from './policy-lookup.js';
export { registryAuditOutbox } from './registry-audit-outbox.js';
export { deployedRecordId, activationRecordId } from './registry-audit-ids.js';
export { createDomainDecider, type DomainDecider, type DomainDecision } from './domain-decider.js';
export type {
  AuditedRegistryEntry,
  PolicyActivation,
  PolicyActivationKind,
  PolicyFunctionSignature,
  PolicyModuleVersion,
  PolicyRepository,
  PolicyRuleEntry,
  PolicyRulePage,
  PolicyRuleQuery,
  PolicyVersionEntry,
  PolicyVersionPage,
  RolloutMode,
  RolloutTerms,
  RunningRollout,
  RunningRolloutQuery,
} from './policy-store.js';
export { POLICY_ACTIVATION_KINDS, ROLLOUT_MODES } from './policy-store.js';
export { PolicyLogError } from './policy-log-error.js';
export {
  judgeCase,
  MAX_TEST_CASES,
  moduleTestsSchema,
  type CaseFailure,
  type CaseOutcome,
  type ModuleTests,
  type TestCase,
} from './module-tests.js';

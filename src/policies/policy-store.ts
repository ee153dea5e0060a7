import type { AuditOutboxRepository, OwedAudit } from '../audit/index.js';

/** A rule of a deployed module, as the compiler reports it. */
export interface PolicyFunctionSignature {
  name: string;
  params: { name: string; type: string }[];
  returnType: string;
}

/** One deployed version of a tenant's policy module. Stored once, never changed. */
export interface PolicyModuleVersion {
  policyModule: string;
  /** 1, 2, … per (tenant, module), without gaps. */
  version: number;
  source: string;
  locale: string;
  /** SHA-256 hex of the source's UTF-8 bytes. */
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  actorId: string;
  createdAt: string;
}

/**
 * DEPLOY and ROLLBACK change the active version. A rollout's steps are activations too, so one log
 * says both which version answers and which rollout runs: ROLLOUT_STARTED and ROLLOUT_ABORTED keep
 * the active (stable) version, ROLLOUT_PROMOTED makes the rollout's version the active one.
 */
export const POLICY_ACTIVATION_KINDS = ['DEPLOY', 'ROLLBACK', 'ROLLOUT_STARTED', 'ROLLOUT_PROMOTED', 'ROLLOUT_ABORTED'] as const;
export type PolicyActivationKind = (typeof POLICY_ACTIVATION_KINDS)[number];

export const ROLLOUT_MODES = ['shadow', 'canary'] as const;
/** How a rollout's version meets traffic: `shadow` answers nobody, `canary` answers a share. */
export type RolloutMode = (typeof ROLLOUT_MODES)[number];

/** What a rollout step is about; stored with each of its activations. */
export interface RolloutTerms {
  /** The version rolled out (stored, never active before the rollout). */
  version: number;
  mode: RolloutMode;
  /** Shadow: share of the stable version's evaluations copied; canary: share answered by `version`. 1-100. */
  percent: number;
  /** Dotted path into the context whose value picks the version (canary); null: by request. */
  stickyKey: string | null;
  /** Shadow: keep the contexts of sampled disagreements. */
  captureContexts: boolean;
  /** The seq of the ROLLOUT_STARTED activation: the rollout's number. */
  startedSeq: number;
  /** Why it ended (promote, abort); null on the start. */
  reason: string | null;
  /** The anomaly that made the guard abort it; null otherwise. */
  anomalyId: string | null;
}

/**
 * One change of a module's active version, numbered `seq` 1, 2, … per (tenant, module). The
 * activation with the highest seq names the active version; every other version is superseded.
 * Activations are only ever inserted, so "which version is active" needs no update in place.
 */
export interface PolicyActivation {
  policyModule: string;
  seq: number;
  kind: PolicyActivationKind;
  /** Active from this activation on; 0 names the service's built-in module of that name. */
  version: number;
  /** The version active before: the predecessor's `version`; for seq 1, 0 (built-in) or null (none). */
  previousVersion: number | null;
  /** Highest version any deploy activated up to and including this activation. */
  highestDeployed: number;
  actorId: string;
  occurredAt: string;
  /** The rollout a ROLLOUT_* activation is a step of; null for DEPLOY and ROLLBACK. */
  rollout: RolloutTerms | null;
}

/** A registry entry that can owe an audit record: a deployed version or a rollback activation. */
export type AuditedRegistryEntry =
  | { kind: 'version'; policyModule: string; version: number }
  | { kind: 'activation'; policyModule: string; seq: number };

/** The policy registry; its versions and activations are the outbox of their audit records. */
export interface PolicyRepository extends AuditOutboxRepository<AuditedRegistryEntry> {
  /** Highest stored version of the module; 0 when it has none. */
  latestVersion(tenantId: string, policyModule: string): Promise<number>;
  /**
   * Stores a new version, with the audit record it owes when given (in the same insert). Returns false when the (tenant, module, version) already exists (another
   * deployer took the number: retry with the next). Throws PolicyLogError when version − 1 does
   * not exist, so versions stay contiguous.
   */
  insertVersion(tenantId: string, version: PolicyModuleVersion, owedAudit?: OwedAudit): Promise<boolean>;
  getVersion(tenantId: string, policyModule: string, version: number): Promise<PolicyModuleVersion | null>;
  /** A page of one module's versions, ascending, without their sources or signatures (never read), with how many it has. */
  listVersions(tenantId: string, policyModule: string, page: { offset: number; limit: number }): Promise<PolicyVersionPage>;
  /** The newest activation of the module (it names the active version); null when none. */
  headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null>;
  /**
   * Inserts the activation, with the audit record it owes when given (in the same insert). Returns
   * false when its seq already exists (another writer won: re-read
   * the head and decide again). Throws PolicyLogError when it does not extend the stored log (seq − 1
   * missing, `previousVersion` not the predecessor's version) or names a version that is not stored.
   */
  appendActivation(tenantId: string, activation: PolicyActivation, owedAudit?: OwedAudit): Promise<boolean>;
  /** Activations of the tenant, or of one module, ordered by module then seq. */
  listActivations(tenantId: string, policyModule?: string): Promise<PolicyActivation[]>;
  /**
   * A page of the rules of the tenant's stored versions, in the order module, version, the rule's
   * place in its version, with the number of all rules the query matches. Reads no source, and
   * costs the page and the tenant's number of versions, never its number of rules.
   */
  listRules(tenantId: string, query: PolicyRuleQuery): Promise<PolicyRulePage>;
  /** How many versions the tenant has stored, across its modules. */
  countVersions(tenantId: string): Promise<number>;
  /**
   * Rollouts running now (a ROLLOUT_STARTED activation that is its module's head), of every
   * tenant, by tenant and module after `after`, at most `limit`: the rollout guard's one read
   * across tenants.
   */
  runningRollouts(query: RunningRolloutQuery): Promise<RunningRollout[]>;
}

export interface RunningRolloutQuery {
  limit: number;
  /** Where the previous page ended. */
  after?: { tenantId: string; policyModule: string };
}

export interface RunningRollout {
  tenantId: string;
  /** The module's head: the ROLLOUT_STARTED activation. */
  activation: PolicyActivation;
}

/**
 * A stored version as lists show it: neither its source nor its rules' signatures (a version's
 * signatures can weigh more than its source), only how many rules it has.
 */
export type PolicyVersionEntry = Omit<PolicyModuleVersion, 'source' | 'functions'> & { ruleCount: number };

export interface PolicyVersionPage {
  items: PolicyVersionEntry[];
  /** Every version of the module, whatever the page. */
  total: number;
}

/** One rule of a stored module version as lists show it: the source belongs to the version. */
export interface PolicyRuleEntry {
  policyModule: string;
  version: number;
  policyFunction: string;
  locale: string;
  createdAt: string;
}

export interface PolicyRuleQuery {
  policyModule?: string;
  /**
   * true: only the rules of each module's active version (the one its newest activation names);
   * false: only the rules of its other versions; absent: all.
   */
  active?: boolean;
  /** Rules skipped, then at most `limit` returned (0: the total only). */
  offset: number;
  limit: number;
}

export interface PolicyRulePage {
  items: PolicyRuleEntry[];
  /** Every rule the query matches, whatever the page. */
  total: number;
}

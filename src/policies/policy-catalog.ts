import {
  createOwedRecordWriter,
  newAuditOutboxLease,
  type AuditRecorder,
  type AuditClaim,
  type AuditEvent,
  type AuditOutboxLease,
} from '../audit/index.js';
import { MAX_NAME_LENGTH, wellFormedPrefix } from '../kernel/index.js';
import type { Diagnostic, Locale } from '../language/index.js';
import { initialVersion, sha256, signatures, type BuiltinVersion, type BuiltinVersions } from './builtin-versions.js';
import { activateModuleVersion, deployModuleVersion, moduleState, type ModuleState, type RolloutPlan } from './module-version-log.js';
import { MAX_RULES_PER_MODULE, MAX_VERSIONS_PER_TENANT } from './policy-bounds.js';
import { compileSource, runCases, type EngineCases, type EngineCompile, type SourceFormatter } from './engine-work.js';
import { createModuleCheck, type CheckRequest, type ModuleCheck } from './module-check.js';
import { judgeCase, type ModuleTests } from './module-tests.js';
import { PolicyCompileError, PolicyErrorCode, PolicyRegistryError, PolicyTestsFailedError, RolloutInProgressError } from './policy-errors.js';
import { activationEvent, deployedEvent } from './policy-events.js';
import { parsePolicyId, policyId, versionId } from './policy-id.js';
import type {
  AuditedRegistryEntry,
  PolicyActivation,
  PolicyFunctionSignature,
  PolicyModuleVersion,
  PolicyRepository,
  PolicyRuleEntry,
  PolicyVersionEntry,
} from './policy-store.js';
import { createSourceTranslator } from './source-translator.js';
import type { VersionResolver } from './version-resolver.js';

export const POLICY_STATUSES = ['ACTIVE', 'SUPERSEDED', 'RETIRED'] as const;
/** RETIRED is part of the schema but never produced: no operation retires a version. */
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/**
 * One rule of one module version: the interface's Policy, plus where it comes from, without the
 * source, which belongs to the version (every rule of a version shares it): getPolicy and
 * getVersionSource carry it.
 */
export interface PolicyRecord {
  id: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  versionId: string;
  status: PolicyStatus;
  /** True for the service's built-in module (version 0), visible to every tenant. */
  builtin: boolean;
  locale: string;
  createdAt: string;
  updatedAt: string;
  /** The owning tenant; absent for built-in policies, which belong to no tenant. */
  tenantId?: string;
}

/** One policy with its version's source. */
export type PolicyDetail = PolicyRecord & { source: string };

/**
 * One version of a module as the versions endpoint lists it: how many rules, not their
 * signatures, which can weigh more than the source (a page of them would be megabytes).
 */
export interface ModuleVersionSummary {
  policyModule: string;
  version: number;
  versionId: string;
  status: PolicyStatus;
  builtin: boolean;
  locale: string;
  sourceHash: string;
  ruleCount: number;
  /** Who deployed it; null for the built-in module. */
  actorId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One version of a module read alone: with its rules' signatures. */
export interface ModuleVersionRecord extends ModuleVersionSummary {
  functions: PolicyFunctionSignature[];
}

/** The source of one module version, as stored or printed in another locale. */
export interface VersionSource {
  policyModule: string;
  version: number;
  /** The locale `source` is written in. */
  locale: string;
  source: string;
}

export interface DeployRequest {
  source: string;
  /** Language tag of the source, as for evaluate-source. */
  locale: string;
  /** Cases that must all pass, in the engine, before anything is stored. */
  tests?: ModuleTests | undefined;
  /** Roll the version out (shadow or canary) instead of activating it. */
  rollout?: RolloutPlan | undefined;
}

export interface DeployResult {
  module: ModuleVersionRecord;
  policies: PolicyRecord[];
  /** Warnings of the compiler (a deploy with errors is refused). */
  warnings: Diagnostic[];
  /** The rollout the deploy started; null for an active deploy. */
  rollout: (RolloutPlan & { stableVersion: number }) | null;
}

export interface RollbackResult {
  policyModule: string;
  version: number;
  versionId: string;
  previousVersion: number | null;
  activatedAt: string;
}

export interface PolicyListFilter {
  policyModule?: string;
  status?: PolicyStatus;
}

/** A page of a list: `page` counts from 0; `size` is the caller's to bound (policy-bounds.ts). */
export interface PolicyListPage {
  page: number;
  size: number;
}

export interface PolicyListRequest extends PolicyListFilter, PolicyListPage {}

export interface PolicyPage {
  items: PolicyRecord[];
  /** Every policy the filter matches. */
  total: number;
}

export interface PolicyCatalogDeps {
  policies: PolicyRepository;
  /** The batched audit chain writer shared with the rest of the API. */
  audit: Pick<AuditRecorder, 'append'>;
  /** Compiles a deployed source in the engine (EvaluationService.compile): never on the API's event loop. */
  compile: EngineCompile;
  /** Evaluates a deploy's test cases in the engine, unaudited (EvaluationService.evaluateCases). */
  evaluateCases: EngineCases;
  /** The built-in library, visible to every tenant as version 0. */
  builtins: BuiltinVersions;
  versions: VersionResolver;
  /** The claim this process stores deploys and rollbacks under (default: a new one); see src/audit/audit-outbox-follower.ts. */
  auditLease?: AuditOutboxLease;
  /**
   * A record was written but marking its entry failed: harmless (the follower finds the record by
   * its id and marks the entry), worth a log line.
   */
  onAuditMarkError?: (error: unknown) => void;
  now?: () => Date;
  /** Prints a stored source in another locale in the engine (EvaluationService.format): never on the API's event loop. */
  format: SourceFormatter;
}

/** Deploy, rollback and the reads of the registry; evaluation resolves through VersionResolver. */
export interface PolicyCatalog {
  /** What a deploy of the source would find (diagnostics, the cases' results, the module printed), storing nothing. */
  check(tenantId: string, request: CheckRequest): Promise<ModuleCheck>;
  /** Compiles, stores a new version and activates it; 400 PolicyCompileError when it does not compile. */
  deploy(tenantId: string, request: DeployRequest, actorId: string): Promise<DeployResult>;
  /** Activates an older (or any other) version; 404 unknown module/version, 409 already active. */
  rollback(tenantId: string, policyModule: string, version: number, actorId: string): Promise<RollbackResult>;
  /**
   * A page of the built-in policies (version 0 of each built-in module, by module) followed by the
   * tenant's own (by module, version and the rule's place in its version), paged in the store.
   */
  listPolicies(tenantId: string, request: PolicyListRequest): Promise<PolicyPage>;
  /** Null when the id names no policy the tenant can see. */
  getPolicy(tenantId: string, id: string): Promise<PolicyDetail | null>;
  /** A page of the module's versions, ascending (the built-in version 0 first); 404 when the tenant can see no module of that name. */
  listVersions(tenantId: string, policyModule: string, page: PolicyListPage): Promise<{ items: ModuleVersionSummary[]; total: number }>;
  /** One version of the module; 404 unknown module or version. */
  getVersion(tenantId: string, policyModule: string, version: number): Promise<ModuleVersionRecord>;
  /** A version's source, in `locale` when given (else as stored); 404 unknown module/version. */
  getVersionSource(tenantId: string, policyModule: string, version: number, locale?: Locale): Promise<VersionSource>;
}

function notFound(code: string, message: string): PolicyRegistryError {
  return new PolicyRegistryError(404, code, message);
}

function noStableVersion(policyModule: string): PolicyRegistryError {
  return new PolicyRegistryError(
    409,
    PolicyErrorCode.ROLLOUT_NO_STABLE_VERSION,
    `policy module \`${policyModule}\` has no active version for a rollout to compare with; deploy its first version without \`rollout\``,
  );
}

export function createPolicyCatalog(deps: PolicyCatalogDeps): PolicyCatalog {
  const now = deps.now ?? (() => new Date());
  const repo = deps.policies;
  const { builtins, versions } = deps;
  const initial = (policyModule: string): 0 | null => initialVersion(builtins, policyModule);
  const storedVersion = versions.storedVersion;
  const translate = createSourceTranslator(deps.format);
  const owedRecords = createOwedRecordWriter({
    audit: deps.audit,
    lease: deps.auditLease ?? newAuditOutboxLease(),
    now,
    ...(deps.onAuditMarkError ? { onMarkError: deps.onAuditMarkError } : {}),
  });

  /** Writes the record a stored entry owes (none without a record id: stored without an audit claim). */
  async function writeOwedRecord(tenantId: string, entry: AuditedRegistryEntry, recordId: string | null, claim: AuditClaim, event: AuditEvent) {
    if (recordId !== null) await owedRecords.write(repo, tenantId, entry, { recordId, claim }, event);
  }

  function statusOf(state: ModuleState, version: number): PolicyStatus {
    return state.active === version ? 'ACTIVE' : 'SUPERSEDED';
  }

  function builtinRecords(builtin: BuiltinVersion, state: ModuleState): PolicyRecord[] {
    const { module } = builtin;
    return builtin.functions.map((f) => ({
      id: policyId(module.moduleName, f.name, 0),
      policyModule: module.moduleName,
      policyFunction: f.name,
      version: 0,
      versionId: versionId(module.moduleName, 0),
      status: statusOf(state, 0),
      builtin: true,
      locale: module.locale,
      createdAt: builtin.createdAt,
      updatedAt: state.changedAt.get(0) ?? builtin.createdAt,
    }));
  }

  function ruleRecord(tenantId: string, rule: PolicyRuleEntry, state: ModuleState): PolicyRecord {
    return {
      id: policyId(rule.policyModule, rule.policyFunction, rule.version),
      policyModule: rule.policyModule,
      policyFunction: rule.policyFunction,
      version: rule.version,
      versionId: versionId(rule.policyModule, rule.version),
      status: statusOf(state, rule.version),
      builtin: false,
      locale: rule.locale,
      createdAt: rule.createdAt,
      updatedAt: state.changedAt.get(rule.version) ?? rule.createdAt,
      tenantId,
    };
  }

  function versionRecords(tenantId: string, version: PolicyModuleVersion, state: ModuleState): PolicyRecord[] {
    const { policyModule, locale, createdAt } = version;
    return version.functions.map((f) => ruleRecord(tenantId, { policyModule, version: version.version, policyFunction: f.name, locale, createdAt }, state));
  }

  /**
   * The built-in policies on a page (they come first: version 0 of each built-in module, by
   * module), and how many the filter keeps. A module's state is read only to filter by status or
   * to show its policies.
   */
  async function builtinShare(tenantId: string, filter: PolicyListFilter, offset: number, size: number): Promise<{ shown: PolicyRecord[]; total: number }> {
    const modules = [...builtins.values()]
      .filter((b) => filter.policyModule === undefined || b.module.moduleName === filter.policyModule)
      .sort((a, b) => (a.module.moduleName < b.module.moduleName ? -1 : 1));
    const states = new Map<string, ModuleState>();
    if (filter.status !== undefined) {
      await Promise.all(modules.map(async (b) => states.set(b.module.moduleName, await stateOf(tenantId, b.module.moduleName))));
    }
    const kept = filter.status === undefined ? modules : modules.filter((b) => statusOf(states.get(b.module.moduleName)!, 0) === filter.status);
    const shown: PolicyRecord[] = [];
    let first = 0;
    for (const builtin of kept) {
      const count = builtin.functions.length;
      const from = Math.max(0, offset - first);
      const to = Math.min(count, offset + size - first);
      if (from < to) {
        const state = states.get(builtin.module.moduleName) ?? (await stateOf(tenantId, builtin.module.moduleName));
        shown.push(...builtinRecords(builtin, state).slice(from, to));
      }
      first += count;
    }
    return { shown, total: first };
  }

  function builtinVersionSummary(builtin: BuiltinVersion, state: ModuleState): ModuleVersionSummary {
    return {
      policyModule: builtin.module.moduleName,
      version: 0,
      versionId: versionId(builtin.module.moduleName, 0),
      status: statusOf(state, 0),
      builtin: true,
      locale: builtin.module.locale,
      sourceHash: builtin.sourceHash,
      ruleCount: builtin.functions.length,
      actorId: null,
      createdAt: builtin.createdAt,
      updatedAt: state.changedAt.get(0) ?? builtin.createdAt,
    };
  }

  function storedVersionSummary(version: PolicyVersionEntry, state: ModuleState): ModuleVersionSummary {
    return {
      policyModule: version.policyModule,
      version: version.version,
      versionId: versionId(version.policyModule, version.version),
      status: statusOf(state, version.version),
      builtin: false,
      locale: version.locale,
      sourceHash: version.sourceHash,
      ruleCount: version.ruleCount,
      actorId: version.actorId,
      createdAt: version.createdAt,
      updatedAt: state.changedAt.get(version.version) ?? version.createdAt,
    };
  }

  const builtinVersionRecord = (builtin: BuiltinVersion, state: ModuleState): ModuleVersionRecord => ({
    ...builtinVersionSummary(builtin, state),
    functions: builtin.functions,
  });

  const storedVersionRecord = (version: PolicyModuleVersion, state: ModuleState): ModuleVersionRecord => ({
    ...storedVersionSummary({ ...version, ruleCount: version.functions.length }, state),
    functions: version.functions,
  });

  /** Runs the cases in the engine; resolves when all pass, else throws the failures (422). */
  async function passTests(tenantId: string, source: string, locale: string, tests: ModuleTests): Promise<void> {
    const outcomes = await runCases(deps.evaluateCases, tenantId, source, locale, tests);
    const failures = tests.cases.flatMap((testCase, index) => judgeCase(testCase, outcomes[index]!) ?? []);
    if (failures.length > 0) throw new PolicyTestsFailedError(failures, tests.cases.length);
  }

  async function stateOf(tenantId: string, policyModule: string): Promise<ModuleState> {
    return moduleState(await repo.listActivations(tenantId, policyModule), initial(policyModule));
  }

  return {
    check: createModuleCheck(deps),

    async deploy(tenantId, request, actorId) {
      const compiled = await compileSource(deps.compile, tenantId, request.source, request.locale);
      if (!compiled.ok) throw new PolicyCompileError(compiled.diagnostics);
      const { module: program, diagnostics } = compiled;
      const policyModule = program.moduleName;
      if (program.functions.length > MAX_RULES_PER_MODULE) {
        throw new PolicyRegistryError(
          400,
          PolicyErrorCode.TOO_MANY_RULES,
          `module \`${policyModule.slice(0, 80)}\` defines ${program.functions.length} rules; a deployed module may define at most ${MAX_RULES_PER_MODULE}`,
        );
      }
      const long = [policyModule, ...program.functions.map((f) => f.name)].find((name) => name.length > MAX_NAME_LENGTH);
      if (long !== undefined) {
        throw new PolicyRegistryError(
          400,
          PolicyErrorCode.REQUEST_INVALID,
          `the name \`${wellFormedPrefix(long, 40)}…\` is longer than ${MAX_NAME_LENGTH} characters; deployed module and rule names must be shorter`,
        );
      }
      const head = await repo.headActivation(tenantId, policyModule);
      if (head?.kind === 'ROLLOUT_STARTED') throw new RolloutInProgressError(policyModule, head.rollout!.version, 'a deploy');
      if (request.rollout !== undefined && (head === null ? initial(policyModule) : head.version) === null) throw noStableVersion(policyModule);
      if (request.tests !== undefined) await passTests(tenantId, request.source, request.locale, request.tests);
      // Checked just before storing, so only deploys racing within these few milliseconds can pass it together.
      if ((await repo.countVersions(tenantId)) >= MAX_VERSIONS_PER_TENANT) {
        throw new PolicyRegistryError(
          409,
          PolicyErrorCode.VERSION_QUOTA_EXCEEDED,
          `the tenant has stored ${MAX_VERSIONS_PER_TENANT} policy versions, the most it may store; versions are kept for good, so no deploy can add another`,
        );
      }
      const at = now();
      const auditClaim = owedRecords.claim(at);
      const outcome = await deployModuleVersion(repo, tenantId, {
        policyModule,
        source: request.source,
        locale: program.locale,
        sourceHash: sha256(request.source),
        functions: signatures(program.functions),
        actorId,
        at,
        initialVersion: initial(policyModule),
        auditClaim,
        ...(request.rollout !== undefined ? { rollout: request.rollout } : {}),
      });
      const { activation } = outcome;
      if (activation !== null) await versions.activationChanged(tenantId, policyModule);
      const entry: AuditedRegistryEntry = { kind: 'version', policyModule, version: outcome.version.version };
      await writeOwedRecord(tenantId, entry, outcome.auditRecordId, auditClaim, deployedEvent(outcome.version, activation?.kind === 'DEPLOY' ? activation : null));
      if (activation?.kind === 'ROLLOUT_STARTED') {
        const started: AuditedRegistryEntry = { kind: 'activation', policyModule, seq: activation.seq };
        await writeOwedRecord(tenantId, started, outcome.rolloutRecordId, auditClaim, activationEvent(activation));
      }
      // Lost to a rollout started meanwhile (or an active version gone): the version is stored, inactive.
      if (outcome.blockedBy === 'rollout-running') {
        const running = (await repo.headActivation(tenantId, policyModule))?.rollout?.version ?? outcome.version.version;
        throw new RolloutInProgressError(policyModule, running, `a deploy (version ${outcome.version.version} is stored, not active)`);
      }
      if (outcome.blockedBy === 'no-active-version') throw noStableVersion(policyModule);
      const state = await stateOf(tenantId, policyModule);
      return {
        module: storedVersionRecord(outcome.version, state),
        policies: versionRecords(tenantId, outcome.version, state),
        warnings: diagnostics.filter((d) => d.severity === 'warning'),
        rollout: activation?.kind === 'ROLLOUT_STARTED' && request.rollout !== undefined ? { ...request.rollout, stableVersion: activation.version } : null,
      };
    },

    async rollback(tenantId, policyModule, version, actorId) {
      await versions.findVersion(tenantId, policyModule, version);
      const at = now();
      const auditClaim = owedRecords.claim(at);
      const outcome = await activateModuleVersion(repo, tenantId, {
        policyModule,
        version,
        actorId,
        at,
        initialVersion: initial(policyModule),
        auditClaim,
      });
      if (!outcome.activated && outcome.rolloutRunning) {
        const head = await repo.headActivation(tenantId, policyModule);
        throw new RolloutInProgressError(policyModule, head?.rollout?.version ?? version, 'a rollback');
      }
      if (!outcome.activated) {
        throw new PolicyRegistryError(
          409,
          PolicyErrorCode.VERSION_ALREADY_ACTIVE,
          `version ${version} of policy module \`${policyModule}\` is already active`,
        );
      }
      const activation: PolicyActivation = outcome.activation;
      await versions.activationChanged(tenantId, policyModule);
      const entry: AuditedRegistryEntry = { kind: 'activation', policyModule, seq: activation.seq };
      await writeOwedRecord(tenantId, entry, outcome.auditRecordId, auditClaim, activationEvent(activation));
      return {
        policyModule,
        version,
        versionId: versionId(policyModule, version),
        previousVersion: activation.previousVersion,
        activatedAt: activation.occurredAt,
      };
    },

    async listPolicies(tenantId, request) {
      const { page, size, ...filter } = request;
      // RETIRED is part of the schema but never produced.
      if (filter.status === 'RETIRED') return { items: [], total: 0 };
      const offset = page * size;
      const builtin = await builtinShare(tenantId, filter, offset, size);
      const stored = await repo.listRules(tenantId, {
        ...(filter.policyModule !== undefined ? { policyModule: filter.policyModule } : {}),
        ...(filter.status !== undefined ? { active: filter.status === 'ACTIVE' } : {}),
        offset: Math.max(0, offset - builtin.total),
        limit: size - builtin.shown.length,
      });
      const modules = [...new Set(stored.items.map((rule) => rule.policyModule))];
      const states = new Map(await Promise.all(modules.map(async (name) => [name, await stateOf(tenantId, name)] as const)));
      return {
        items: [...builtin.shown, ...stored.items.map((rule) => ruleRecord(tenantId, rule, states.get(rule.policyModule)!))],
        total: builtin.total + stored.total,
      };
    },

    async getPolicy(tenantId, id) {
      const parsed = parsePolicyId(id);
      if (parsed === null) return null;
      const { policyModule, policyFunction, version } = parsed;
      const builtin = builtins.get(policyModule);
      if (version === 0) {
        if (builtin === undefined) return null;
        const records = builtinRecords(builtin, await stateOf(tenantId, policyModule));
        const record = records.find((r) => r.policyFunction === policyFunction);
        return record === undefined ? null : { ...record, source: builtin.module.source };
      }
      const stored = await storedVersion(tenantId, policyModule, version);
      if (stored === null || !stored.functions.some((f) => f.name === policyFunction)) return null;
      const records = versionRecords(tenantId, stored, await stateOf(tenantId, policyModule));
      const record = records.find((r) => r.policyFunction === policyFunction);
      return record === undefined ? null : { ...record, source: stored.source };
    },

    async listVersions(tenantId, policyModule, { page, size }) {
      const builtin = builtins.get(policyModule);
      const offset = page * size;
      const builtinShown = builtin !== undefined && offset === 0;
      const skipped = builtin === undefined ? offset : Math.max(0, offset - 1);
      const [stored, state] = await Promise.all([
        repo.listVersions(tenantId, policyModule, { offset: skipped, limit: builtinShown ? size - 1 : size }),
        stateOf(tenantId, policyModule),
      ]);
      if (builtin === undefined && stored.total === 0) {
        throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
      }
      return {
        items: [...(builtinShown ? [builtinVersionSummary(builtin, state)] : []), ...stored.items.map((v) => storedVersionSummary(v, state))],
        total: stored.total + (builtin === undefined ? 0 : 1),
      };
    },

    async getVersion(tenantId, policyModule, version) {
      const [found, state] = await Promise.all([versions.findVersion(tenantId, policyModule, version), stateOf(tenantId, policyModule)]);
      return 'builtin' in found ? builtinVersionRecord(found.builtin, state) : storedVersionRecord(found.stored, state);
    },

    async getVersionSource(tenantId, policyModule, version, locale) {
      const found = await versions.findVersion(tenantId, policyModule, version);
      const stored =
        'builtin' in found
          ? { text: found.builtin.module.source, hash: found.builtin.sourceHash, locale: found.builtin.module.locale as string }
          : { text: found.stored.source, hash: found.stored.sourceHash, locale: found.stored.locale };
      if (locale === undefined || locale === stored.locale) return { policyModule, version, locale: stored.locale, source: stored.text };
      return { policyModule, version, locale, source: await translate(tenantId, stored, locale) };
    },

  };
}

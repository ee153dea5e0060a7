import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { AuditChainWriter } from '../audit/index.js';
import type { EvaluationItem, ItemResult } from '../engine/index.js';
import { MAX_NAME_LENGTH, type ResolvedPolicy, type StoredPolicyRequest } from '../evaluation/index.js';
import type { EvaluationDispatcher } from '../jobs/index.js';
import { compile, type Diagnostic, type FunctionSignature } from '../language/index.js';
import type {
  PolicyActivation,
  PolicyFunctionSignature,
  PolicyModuleVersion,
  PolicyRepository,
  RollupRepository,
} from '../store/index.js';
import type { BuiltinModule } from './builtin-library.js';
import { activateModuleVersion, deployModuleVersion, moduleState, type ModuleState } from './module-version-log.js';
import { PolicyCompileError, PolicyErrorCode, PolicyRegistryError } from './policy-errors.js';
import { deployedEvent, evaluatedEvent, rolledBackEvent } from './policy-events.js';
import { parsePolicyId, policyId, versionId } from './policy-id.js';
import { createRollupRecorder, type RollupRecorder } from './rollup-recorder.js';

export const POLICY_STATUSES = ['ACTIVE', 'SUPERSEDED', 'RETIRED'] as const;
/** RETIRED is part of the schema but never produced: no operation retires a version. */
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** One rule of one module version: the interface's Policy, plus where it comes from. */
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
  source: string;
  /** The owning tenant; absent for built-in policies, which belong to no tenant. */
  tenantId?: string;
}

/** One version of a module as the versions endpoint lists it. */
export interface ModuleVersionRecord {
  policyModule: string;
  version: number;
  versionId: string;
  status: PolicyStatus;
  builtin: boolean;
  locale: string;
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  /** Who deployed it; null for the built-in module. */
  actorId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeployRequest {
  source: string;
  /** Language tag of the source, as for evaluate-source. */
  locale: string;
}

export interface DeployResult {
  module: ModuleVersionRecord;
  policies: PolicyRecord[];
  /** Warnings of the compiler (a deploy with errors is refused). */
  warnings: Diagnostic[];
}

export interface RollbackResult {
  policyModule: string;
  version: number;
  versionId: string;
  previousVersion: number | null;
  activatedAt: string;
}

export interface StoredEvaluation {
  policy: ResolvedPolicy;
  result: ItemResult;
}

export interface PolicyListFilter {
  policyModule?: string;
  status?: PolicyStatus;
}

export interface PolicyRegistryDeps {
  policies: PolicyRepository;
  rollups: RollupRepository;
  /** The batched audit chain writer shared with the rest of the API. */
  audit: Pick<AuditChainWriter, 'append'>;
  /** Where evaluations run (the `policy-evaluate` queue in the service). */
  dispatcher: Pick<EvaluationDispatcher, 'evaluateMany'>;
  /** The built-in library (loadBuiltinLibrary), visible to every tenant as version 0. */
  builtins: readonly BuiltinModule[];
  /** Rollup writes are shared by the samples of this window; default 5 ms. */
  rollupFlushIntervalMs?: number;
  /** Module versions kept in memory (they never change); default 512. */
  versionCacheSize?: number;
  now?: () => Date;
}

export interface PolicyRegistry {
  /** Compiles, stores a new version and activates it; 400 PolicyCompileError when it does not compile. */
  deploy(tenantId: string, request: DeployRequest, actorId: string): Promise<DeployResult>;
  /** Activates an older (or any other) version; 404 unknown module/version, 409 already active. */
  rollback(tenantId: string, policyModule: string, version: number, actorId: string): Promise<RollbackResult>;
  /**
   * The version that answers for the tenant: the pinned one, else the tenant's active version, else
   * the built-in module. Throws PolicyRegistryError 404 for an unknown module, version or function.
   */
  resolve(tenantId: string, policyModule: string, policyFunction: string, version?: number): Promise<ResolvedPolicy>;
  /** Resolves, evaluates through the dispatcher, and records the evaluation (audit and rollup). */
  evaluateStored(
    tenantId: string,
    actorId: string,
    request: StoredPolicyRequest,
    options?: { trace?: boolean },
  ): Promise<StoredEvaluation>;
  /** POLICY_EVALUATED records and rollups for evaluations run elsewhere (batches); resolves once stored. */
  recordEvaluations(tenantId: string, actorId: string, evaluations: readonly StoredEvaluation[]): Promise<void>;
  listPolicies(tenantId: string, filter?: PolicyListFilter): Promise<PolicyRecord[]>;
  /** Null when the id names no policy the tenant can see. */
  getPolicy(tenantId: string, id: string): Promise<PolicyRecord | null>;
  /** Ascending; 404 when the tenant can see no module of that name. */
  listVersions(tenantId: string, policyModule: string): Promise<ModuleVersionRecord[]>;
  builtinModuleNames(): string[];
  /** Stores the rollups still gathered in memory. */
  flush(): Promise<void>;
}

interface Builtin {
  module: BuiltinModule;
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  /** The file's modification time: the same in every process running the same build. */
  createdAt: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function signatures(functions: readonly FunctionSignature[]): PolicyFunctionSignature[] {
  return functions.map((f) => ({ name: f.name, params: f.params.map((p) => ({ name: p.name, type: p.type })), returnType: f.returnType }));
}

function notFound(code: string, message: string): PolicyRegistryError {
  return new PolicyRegistryError(404, code, message);
}

export function createPolicyRegistry(deps: PolicyRegistryDeps): PolicyRegistry {
  const now = deps.now ?? (() => new Date());
  const repo = deps.policies;
  const rollups: RollupRecorder = createRollupRecorder(deps.rollups, {
    ...(deps.rollupFlushIntervalMs !== undefined ? { flushIntervalMs: deps.rollupFlushIntervalMs } : {}),
    now,
  });
  const builtins = new Map<string, Builtin>();
  for (const module of deps.builtins) {
    builtins.set(module.moduleName, {
      module,
      sourceHash: sha256(module.source),
      functions: signatures(module.functions),
      createdAt: statSync(module.file).mtime.toISOString(),
    });
  }
  const initialVersion = (policyModule: string): 0 | null => (builtins.has(policyModule) ? 0 : null);

  const cacheSize = deps.versionCacheSize ?? 512;
  const versionCache = new Map<string, PolicyModuleVersion>();
  async function storedVersion(tenantId: string, policyModule: string, version: number): Promise<PolicyModuleVersion | null> {
    const key = `${tenantId}\u0000${policyModule}\u0000${version}`;
    const cached = versionCache.get(key);
    if (cached !== undefined) {
      versionCache.delete(key);
      versionCache.set(key, cached);
      return cached;
    }
    const loaded = await repo.getVersion(tenantId, policyModule, version);
    if (loaded !== null && cacheSize > 0) {
      versionCache.set(key, loaded);
      if (versionCache.size > cacheSize) versionCache.delete(versionCache.keys().next().value!);
    }
    return loaded;
  }

  function statusOf(state: ModuleState, version: number): PolicyStatus {
    return state.active === version ? 'ACTIVE' : 'SUPERSEDED';
  }

  function builtinRecords(builtin: Builtin, state: ModuleState): PolicyRecord[] {
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
      source: module.source,
    }));
  }

  function versionRecords(tenantId: string, version: PolicyModuleVersion, state: ModuleState): PolicyRecord[] {
    return version.functions.map((f) => ({
      id: policyId(version.policyModule, f.name, version.version),
      policyModule: version.policyModule,
      policyFunction: f.name,
      version: version.version,
      versionId: versionId(version.policyModule, version.version),
      status: statusOf(state, version.version),
      builtin: false,
      locale: version.locale,
      createdAt: version.createdAt,
      updatedAt: state.changedAt.get(version.version) ?? version.createdAt,
      source: version.source,
      tenantId,
    }));
  }

  function builtinVersionRecord(builtin: Builtin, state: ModuleState): ModuleVersionRecord {
    return {
      policyModule: builtin.module.moduleName,
      version: 0,
      versionId: versionId(builtin.module.moduleName, 0),
      status: statusOf(state, 0),
      builtin: true,
      locale: builtin.module.locale,
      sourceHash: builtin.sourceHash,
      functions: builtin.functions,
      actorId: null,
      createdAt: builtin.createdAt,
      updatedAt: state.changedAt.get(0) ?? builtin.createdAt,
    };
  }

  function storedVersionRecord(version: PolicyModuleVersion, state: ModuleState): ModuleVersionRecord {
    return {
      policyModule: version.policyModule,
      version: version.version,
      versionId: versionId(version.policyModule, version.version),
      status: statusOf(state, version.version),
      builtin: false,
      locale: version.locale,
      sourceHash: version.sourceHash,
      functions: version.functions,
      actorId: version.actorId,
      createdAt: version.createdAt,
      updatedAt: state.changedAt.get(version.version) ?? version.createdAt,
    };
  }

  async function stateOf(tenantId: string, policyModule: string): Promise<ModuleState> {
    return moduleState(await repo.listActivations(tenantId, policyModule), initialVersion(policyModule));
  }

  /** The module's version, or the 404 that names what is missing. */
  async function versionOrNotFound(
    tenantId: string,
    policyModule: string,
    version: number,
  ): Promise<{ builtin: Builtin } | { stored: PolicyModuleVersion }> {
    const builtin = builtins.get(policyModule);
    if (version === 0 && builtin !== undefined) return { builtin };
    const stored = version > 0 ? await storedVersion(tenantId, policyModule, version) : null;
    if (stored !== null) return { stored };
    if (builtin === undefined && (await repo.latestVersion(tenantId, policyModule)) === 0) {
      throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
    }
    throw notFound(PolicyErrorCode.VERSION_NOT_FOUND, `policy module \`${policyModule}\` has no version ${version}`);
  }

  async function resolve(tenantId: string, policyModule: string, policyFunction: string, pinned?: number): Promise<ResolvedPolicy> {
    let version = pinned;
    if (version === undefined) {
      const head = await repo.headActivation(tenantId, policyModule);
      const active = head === null ? initialVersion(policyModule) : head.version;
      if (active === null) {
        if ((await repo.latestVersion(tenantId, policyModule)) === 0) {
          throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
        }
        throw notFound(PolicyErrorCode.NO_ACTIVE_VERSION, `policy module \`${policyModule}\` has no active version; name one with \`version\``);
      }
      version = active;
    }
    const found = await versionOrNotFound(tenantId, policyModule, version);
    const { source, locale, functions } =
      'builtin' in found
        ? { source: found.builtin.module.source, locale: found.builtin.module.locale, functions: found.builtin.functions }
        : found.stored;
    if (!functions.some((f) => f.name === policyFunction)) {
      throw notFound(
        PolicyErrorCode.FUNCTION_NOT_FOUND,
        `version ${version} of policy module \`${policyModule}\` has no rule \`${policyFunction}\``,
      );
    }
    return { source, locale, functionName: policyFunction, policyModule, version, versionId: versionId(policyModule, version) };
  }

  async function recordEvaluations(tenantId: string, actorId: string, evaluations: readonly StoredEvaluation[]): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const { policy, result } of evaluations) {
      writes.push(deps.audit.append(tenantId, evaluatedEvent(actorId, policy, result)));
      writes.push(
        rollups.record(tenantId, {
          policyModule: policy.policyModule,
          policyFunction: policy.functionName,
          version: policy.version,
          ok: result.ok,
          executionTimeMs: result.executionTimeMs,
        }),
      );
    }
    await Promise.all(writes);
  }

  return {
    async deploy(tenantId, request, actorId) {
      const { program, diagnostics } = compile(request.source, request.locale);
      if (program === null) throw new PolicyCompileError(diagnostics);
      const policyModule = program.moduleName;
      const long = [policyModule, ...program.functions.map((f) => f.name)].find((name) => name.length > MAX_NAME_LENGTH);
      if (long !== undefined) {
        throw new PolicyRegistryError(
          400,
          PolicyErrorCode.REQUEST_INVALID,
          `the name \`${long.slice(0, 40)}…\` is longer than ${MAX_NAME_LENGTH} characters; deployed module and rule names must be shorter`,
        );
      }
      const outcome = await deployModuleVersion(repo, tenantId, {
        policyModule,
        source: request.source,
        locale: program.locale,
        sourceHash: sha256(request.source),
        functions: signatures(program.functions),
        actorId,
        at: now(),
        initialVersion: initialVersion(policyModule),
      });
      await deps.audit.append(tenantId, deployedEvent(actorId, outcome.version, outcome.activation));
      const state = await stateOf(tenantId, policyModule);
      return {
        module: storedVersionRecord(outcome.version, state),
        policies: versionRecords(tenantId, outcome.version, state),
        warnings: diagnostics.filter((d) => d.severity === 'warning'),
      };
    },

    async rollback(tenantId, policyModule, version, actorId) {
      await versionOrNotFound(tenantId, policyModule, version);
      const outcome = await activateModuleVersion(repo, tenantId, {
        policyModule,
        version,
        actorId,
        at: now(),
        initialVersion: initialVersion(policyModule),
      });
      if (!outcome.activated) {
        throw new PolicyRegistryError(
          409,
          PolicyErrorCode.VERSION_ALREADY_ACTIVE,
          `version ${version} of policy module \`${policyModule}\` is already active`,
        );
      }
      const activation: PolicyActivation = outcome.activation;
      await deps.audit.append(tenantId, rolledBackEvent(actorId, activation));
      return {
        policyModule,
        version,
        versionId: versionId(policyModule, version),
        previousVersion: activation.previousVersion,
        activatedAt: activation.occurredAt,
      };
    },

    resolve,

    async evaluateStored(tenantId, actorId, request, options = {}) {
      const policy = await resolve(tenantId, request.policyModule, request.policyFunction, request.version);
      const item: EvaluationItem = {
        source: policy.source,
        locale: policy.locale,
        functionName: policy.functionName,
        context: request.context,
        ...(options.trace ? { trace: true } : {}),
      };
      const [result] = await deps.dispatcher.evaluateMany([item]);
      if (result === undefined) throw new Error('the dispatcher answered no result for one item');
      await recordEvaluations(tenantId, actorId, [{ policy, result }]);
      return { policy, result };
    },

    recordEvaluations,

    async listPolicies(tenantId, filter = {}) {
      const [versions, activations] = await Promise.all([
        repo.listVersions(tenantId, filter.policyModule),
        repo.listActivations(tenantId, filter.policyModule),
      ]);
      const modules = new Set<string>(versions.map((v) => v.policyModule));
      for (const name of builtins.keys()) {
        if (filter.policyModule === undefined || filter.policyModule === name) modules.add(name);
      }
      const records: PolicyRecord[] = [];
      for (const policyModule of [...modules].sort()) {
        const state = moduleState(
          activations.filter((a) => a.policyModule === policyModule),
          initialVersion(policyModule),
        );
        const builtin = builtins.get(policyModule);
        if (builtin !== undefined) records.push(...builtinRecords(builtin, state));
        for (const version of versions) {
          if (version.policyModule === policyModule) records.push(...versionRecords(tenantId, version, state));
        }
      }
      return filter.status === undefined ? records : records.filter((r) => r.status === filter.status);
    },

    async getPolicy(tenantId, id) {
      const parsed = parsePolicyId(id);
      if (parsed === null) return null;
      const { policyModule, policyFunction, version } = parsed;
      const builtin = builtins.get(policyModule);
      if (version === 0) {
        if (builtin === undefined) return null;
        const records = builtinRecords(builtin, await stateOf(tenantId, policyModule));
        return records.find((r) => r.policyFunction === policyFunction) ?? null;
      }
      const stored = await storedVersion(tenantId, policyModule, version);
      if (stored === null || !stored.functions.some((f) => f.name === policyFunction)) return null;
      const records = versionRecords(tenantId, stored, await stateOf(tenantId, policyModule));
      return records.find((r) => r.policyFunction === policyFunction) ?? null;
    },

    async listVersions(tenantId, policyModule) {
      const [versions, state] = await Promise.all([repo.listVersions(tenantId, policyModule), stateOf(tenantId, policyModule)]);
      const builtin = builtins.get(policyModule);
      if (builtin === undefined && versions.length === 0) {
        throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
      }
      return [
        ...(builtin === undefined ? [] : [builtinVersionRecord(builtin, state)]),
        ...versions.map((v) => storedVersionRecord(v, state)),
      ];
    },

    builtinModuleNames() {
      return [...builtins.keys()].sort();
    },

    flush: () => rollups.flush(),
  };
}

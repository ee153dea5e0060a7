import type { PolicyResolution, PolicyResolver, ResolvedPolicy } from '../evaluation/index.js';
import { LRUCache } from 'lru-cache';
import type { ActivationNotices } from './activation-notices.js';
import { initialVersion, type BuiltinVersion, type BuiltinVersions } from './builtin-versions.js';
import { PolicyErrorCode, PolicyRegistryError } from './policy-errors.js';
import { versionId } from './policy-id.js';
import type { PolicyActivation, PolicyModuleVersion, PolicyRepository } from './policy-store.js';
import { createRolloutRoute } from './rollout-routing.js';

export interface VersionResolverDeps {
  policies: PolicyRepository;
  builtins: BuiltinVersions;
  /** Module versions kept in memory (they never change); default 512. */
  versionCacheSize?: number;
  /**
   * How long a module's active version is used without asking the store again
   * (ACTIVE_VERSION_CACHE_MS; default DEFAULT_ACTIVE_VERSION_CACHE_MS, 0 asks every time). Changes
   * announced through `notices` end it at once: in this process always, in others over Redis.
   */
  activeVersionCacheMs?: number;
  notices?: Pick<ActivationNotices, 'announce' | 'listen'>;
}

/** The longest a process may go on answering with a version another process has just replaced. */
export const DEFAULT_ACTIVE_VERSION_CACHE_MS = 1000;
const ACTIVE_VERSION_CACHE_ENTRIES = 10_000;

export type FoundVersion = { builtin: BuiltinVersion } | { stored: PolicyModuleVersion };

/** Deployed versions and built-ins by name, for evaluation (PolicyResolver) and the catalog. */
export interface VersionResolver extends PolicyResolver {
  /** A stored version through the cache; null when the tenant has no such version. */
  storedVersion(tenantId: string, policyModule: string, version: number): Promise<PolicyModuleVersion | null>;
  /** The module's version, or the 404 that names what is missing. */
  findVersion(tenantId: string, policyModule: string, version: number): Promise<FoundVersion>;
  /** The version a reference without `version` gets, or the 404 that says why there is none. */
  activeVersion(tenantId: string, policyModule: string): Promise<number>;
  /** The module's newest activation through the cache (it names the active version and any running rollout); null when none. */
  headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null>;
  /** After a deploy or rollback stored an activation: no process goes on with the old one for long. */
  activationChanged(tenantId: string, policyModule: string): Promise<void>;
}

function moduleKey(tenantId: string, policyModule: string): string {
  return `${tenantId}\u0000${policyModule}`;
}

function notFound(code: string, message: string): PolicyRegistryError {
  return new PolicyRegistryError(404, code, message);
}

export function createVersionResolver(deps: VersionResolverDeps): VersionResolver {
  const repo = deps.policies;
  const { builtins } = deps;
  const cacheSize = deps.versionCacheSize ?? 512;
  const versionCache = new Map<string, PolicyModuleVersion>();
  const activeCacheMs = deps.activeVersionCacheMs ?? DEFAULT_ACTIVE_VERSION_CACHE_MS;
  // Head activations by tenant and module; `{ head: null }` remembers that there is none.
  const heads =
    activeCacheMs > 0 ? new LRUCache<string, { head: PolicyActivation | null }>({ max: ACTIVE_VERSION_CACHE_ENTRIES, ttl: activeCacheMs }) : null;
  // Bumped by every change heard: a read that began before it must not cache what it read.
  let changes = 0;
  deps.notices?.listen((change) => {
    changes += 1;
    if (change === null) heads?.clear();
    else heads?.delete(moduleKey(change.tenantId, change.policyModule));
  });

  async function headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null> {
    const key = moduleKey(tenantId, policyModule);
    const cached = heads?.get(key);
    if (cached !== undefined) return cached.head;
    const before = changes;
    const head = await repo.headActivation(tenantId, policyModule);
    if (before === changes) heads?.set(key, { head });
    return head;
  }

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

  async function findVersion(tenantId: string, policyModule: string, version: number): Promise<FoundVersion> {
    const builtin = builtins.get(policyModule);
    if (version === 0 && builtin !== undefined) return { builtin };
    const stored = version > 0 ? await storedVersion(tenantId, policyModule, version) : null;
    if (stored !== null) return { stored };
    if (builtin === undefined && (await repo.latestVersion(tenantId, policyModule)) === 0) {
      throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
    }
    throw notFound(PolicyErrorCode.VERSION_NOT_FOUND, `policy module \`${policyModule}\` has no version ${version}`);
  }

  async function activeVersion(tenantId: string, policyModule: string): Promise<number> {
    const head = await headActivation(tenantId, policyModule);
    const active = head === null ? initialVersion(builtins, policyModule) : head.version;
    if (active !== null) return active;
    if ((await repo.latestVersion(tenantId, policyModule)) === 0) {
      throw notFound(PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
    }
    throw notFound(PolicyErrorCode.NO_ACTIVE_VERSION, `policy module \`${policyModule}\` has no active version; name one with \`version\``);
  }

  function resolvedOf(policyModule: string, version: number, found: FoundVersion, policyFunction: string): ResolvedPolicy | null {
    const { source, locale, functions } =
      'builtin' in found
        ? { source: found.builtin.module.source, locale: found.builtin.module.locale, functions: found.builtin.functions }
        : found.stored;
    if (!functions.some((f) => f.name === policyFunction)) return null;
    return { source, locale, functionName: policyFunction, policyModule, version, versionId: versionId(policyModule, version) };
  }

  async function resolvePolicy(tenantId: string, policyModule: string, policyFunction: string, pinned?: number): Promise<PolicyResolution> {
    const head = pinned === undefined ? await headActivation(tenantId, policyModule) : null;
    const version = pinned ?? (head !== null ? head.version : await activeVersion(tenantId, policyModule));
    const policy = resolvedOf(policyModule, version, await findVersion(tenantId, policyModule, version), policyFunction);
    if (policy === null) {
      throw notFound(PolicyErrorCode.FUNCTION_NOT_FOUND, `version ${version} of policy module \`${policyModule}\` has no rule \`${policyFunction}\``);
    }
    // A version pinned by the caller wins over a running rollout.
    const rollout = head?.kind === 'ROLLOUT_STARTED' ? head.rollout : null;
    if (rollout === null) return { ok: true, policy };
    const candidateVersion = await storedVersion(tenantId, policyModule, rollout.version);
    const candidate = candidateVersion === null ? null : resolvedOf(policyModule, rollout.version, { stored: candidateVersion }, policyFunction);
    const salt = `${tenantId}\u0000${policyModule}\u0000${rollout.startedSeq}`;
    return { ok: true, policy, rollout: createRolloutRoute(rollout, salt, policy, candidate) };
  }

  return {
    storedVersion,
    findVersion,
    activeVersion,
    headActivation,
    async activationChanged(tenantId, policyModule) {
      changes += 1;
      heads?.delete(moduleKey(tenantId, policyModule));
      await deps.notices?.announce(tenantId, policyModule);
    },
    async resolve(tenantId, request): Promise<PolicyResolution> {
      try {
        return await resolvePolicy(tenantId, request.policyModule, request.policyFunction, request.version);
      } catch (error) {
        if (error instanceof PolicyRegistryError && error.status === 404) return { ok: false, code: error.code, message: error.message };
        throw error;
      }
    },
  };
}

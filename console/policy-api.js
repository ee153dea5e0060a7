// The registry endpoints of the REST API ("Deployed policies" in docs/api.md), as the console calls
// them. Reading needs VIEWER; a deploy MEMBER for a shadow rollout and ADMIN for one that answers
// (active, canary); rolling back, promoting and aborting ADMIN. The server checks all of them.
// These routes take no Idempotency-Key (the server would not replay one), so none is sent.

const POLICIES = '/api/v1/policies';

/** Active policies per page of the module list: a page of the API's largest size. */
export const MODULE_LIST_PAGE_SIZE = 100;
/** Versions per page of a module's versions. */
export const VERSION_PAGE_SIZE = 20;

export function policyApi(client) {
  const moduleBase = (policyModule) => `${POLICIES}/${encodeURIComponent(policyModule)}`;
  return {
    /**
     * A page of the policies the tenant sees (one per rule and version, without source): the
     * envelope {content, totalElements, totalPages, page, size}; `status` and `policyModule` filter.
     */
    list: ({ policyModule, status, page, size } = {}) => client.get(POLICIES, { policyModule, status, page, size }),
    /** A page of a module's versions, oldest first (the page envelope), with status, locale, actor and how many rules each defines. */
    versions: (policyModule, { page, size } = {}) => client.get(`${moduleBase(policyModule)}/versions`, { page, size }),
    /** One version of a module, as the versions list shows it and with its rules' signatures. */
    version: (policyModule, version) => client.get(`${moduleBase(policyModule)}/versions/${encodeURIComponent(version)}`),
    /** A version's source ({locale, source}): as stored, or printed by the service's formatter in `locale`. */
    source: (policyModule, version, locale) =>
      client.get(`${moduleBase(policyModule)}/versions/${encodeURIComponent(version)}/source`, { locale }),
    rollback: (policyModule, version) => client.send('POST', `${moduleBase(policyModule)}/rollback`, { body: { version } }),
    /**
     * Compiles a module without storing it: `{source, locale?, tests?, showIn?}` answers (200, with
     * or without errors) its diagnostics, functions, the tests' cases and the module printed in `showIn`.
     */
    check: (body) => client.send('POST', `${POLICIES}/check`, { body }),
    /** Evaluates one rule of the source sent (MEMBER): `{result, error, code?, diagnostics, trace}`. */
    evaluateSource: (body) => client.send('POST', `${POLICIES}/evaluate-source`, { body, query: { trace: true } }),
    /** A new version: `{source, locale?, tests?, rollout?}`; 201 with the version, 422 with `failures`, 400 with `diagnostics`. */
    deploy: (body) => client.send('POST', POLICIES, { body }),
    /** The module's newest rollout, running or ended (404 ERR_POLICY_ROLLOUT_NOT_FOUND when it never had one). */
    rollout: (policyModule) => client.get(`${moduleBase(policyModule)}/rollout`),
    /** Ends the running rollout: `step` is `promote` or `abort`; answers the ended rollout. */
    endRollout: (policyModule, step, reason) =>
      client.send('POST', `${moduleBase(policyModule)}/rollout/${step === 'promote' ? 'promote' : 'abort'}`, { body: reason ? { reason } : {} }),
    /** A policy function's rollups per version (GET /api/v1/audit/rollups, ADMIN), as the anomaly charts read them. */
    rollups: (query) => client.get('/api/v1/audit/rollups', query),
  };
}

/** The module's newest rollout, or null when it never had one (or there is no such module: its versions say so). */
export async function rolloutOrNull(api, policyModule) {
  try {
    return await api.rollout(policyModule);
  } catch (failure) {
    if (failure.status === 404) return null;
    throw failure;
  }
}

/** The source of one version of a module, as stored. */
export async function versionSource(api, versionRecord) {
  return (await api.source(versionRecord.policyModule, versionRecord.version)).source;
}

/** The module's active version: the one its active policies name (null when none is, or it defines no rule). */
export async function activeVersionOf(api, policyModule) {
  const active = await api.list({ policyModule, status: 'ACTIVE', size: 1 });
  return active.content[0]?.version ?? null;
}

/** One version of a module, or null when the module has no such version. */
export async function versionOrNull(api, policyModule, version) {
  try {
    return await api.version(policyModule, version);
  } catch (failure) {
    if (failure.status === 404) return null;
    throw failure;
  }
}

/**
 * The modules of a page of active policies, in the list's order (the built-in library first):
 * name, active version, its locale, and whether that version is the built-in one. A module whose
 * active version has more rules than a page holds shows on each page it reaches.
 */
export function activeModulesOf(policies) {
  const modules = new Map();
  for (const policy of policies) {
    if (!modules.has(policy.policyModule)) {
      modules.set(policy.policyModule, { policyModule: policy.policyModule, activeVersion: policy.version, locale: policy.locale, builtin: policy.builtin });
    }
  }
  return [...modules.values()];
}

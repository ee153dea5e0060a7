// The registry endpoints of the REST API ("Deployed policies" in README.md), as the console calls
// them. Reading needs VIEWER, rolling back ADMIN; the server checks both.

const POLICIES = '/api/v1/policies';

export function policyApi(client) {
  const moduleBase = (policyModule) => `${POLICIES}/${encodeURIComponent(policyModule)}`;
  return {
    /** Every policy the tenant sees (one per rule and version, with its source). */
    list: (policyModule) => client.get(POLICIES, { policyModule }),
    /** A module's versions, oldest first, with status, locale, actor and the rules they define. */
    versions: (policyModule) => client.get(`${moduleBase(policyModule)}/versions`),
    policy: (id) => client.get(`${POLICIES}/${encodeURIComponent(id)}`),
    /** A version's source printed by the service's formatter in `locale` ({locale, source}). */
    translatedSource: (policyModule, version, locale) =>
      client.get(`${moduleBase(policyModule)}/versions/${encodeURIComponent(version)}/source`, { locale }),
    rollback: (policyModule, version) => client.send('POST', `${moduleBase(policyModule)}/rollback`, { body: { version } }),
  };
}

/**
 * The source of one version of a module. The versions endpoint carries no source: it is read
 * through one of the version's rules, or, for a version without rules, from the module's list.
 */
export async function versionSource(api, versionRecord) {
  const rule = versionRecord.functions?.[0]?.name;
  if (rule) return (await api.policy(`${versionRecord.policyModule}.${rule}@${versionRecord.version}`)).source;
  const policies = await api.list(versionRecord.policyModule);
  const match = policies.find((policy) => policy.version === versionRecord.version);
  if (!match) throw new Error(`The service returned no source for ${versionRecord.versionId}.`);
  return match.source;
}

/** The policy list grouped by module: name, active version, number of versions, built-in or not. */
export function modulesOf(policies) {
  const modules = new Map();
  for (const policy of policies) {
    let entry = modules.get(policy.policyModule);
    if (!entry) {
      entry = { policyModule: policy.policyModule, versions: new Set(), activeVersion: null, builtin: false, locale: null };
      modules.set(policy.policyModule, entry);
    }
    entry.versions.add(policy.version);
    if (policy.builtin) entry.builtin = true;
    if (policy.status === 'ACTIVE') {
      entry.activeVersion = policy.version;
      entry.locale = policy.locale;
    }
  }
  return [...modules.values()]
    .map((entry) => ({ ...entry, versionCount: entry.versions.size, versions: undefined }))
    .sort((a, b) => a.policyModule.localeCompare(b.policyModule));
}

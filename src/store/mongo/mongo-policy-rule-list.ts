import type { Collection, Filter } from 'mongodb';
import type { PolicyRuleEntry, PolicyRulePage, PolicyRuleQuery } from '../../policies/policy-store.js';
import { policyDocumentId, type PolicyVersionDocument } from './mongo-policy-collections.js';
import type { CountedVersion, RuleCounts } from './mongo-rule-counts.js';

/** A version as the list reads it first. */
interface VersionEntry extends CountedVersion {
  policyModule: string;
  version: number;
}

/** Where a version's rules fall on the page: its rules `from` (inclusive) to `to` (exclusive). */
interface PageShare {
  id: string;
  from: number;
  to: number;
}

export interface MongoRuleListParts {
  versions: Collection<PolicyVersionDocument>;
  ruleCounts: RuleCounts;
  /** The version the module's newest activation names; null when it has none. */
  activeVersion(tenantId: string, policyModule: string): Promise<number | null>;
}

/**
 * Pages of the rule list without the aggregation stages FerretDB 1.24 lacks (`$setWindowFields`,
 * a safe `$unwind`): one read of the tenant's version entries (module, version, rule count: one
 * per version, bounded by the tenant's version quota; MongoDB answers it from the index
 * `tenant_module_version_rule_count` alone), then the page's versions by `_id` without their
 * source. With `active`, each module's active version is found by the activation head's `_id`
 * probes (one per module once known to this connection). FerretDB reads every document of the
 * collection for any query but an `_id` equality, sources included (src/store/README.md).
 */
export function createMongoRuleList(parts: MongoRuleListParts): (tenantId: string, query: PolicyRuleQuery) => Promise<PolicyRulePage> {
  const { versions, ruleCounts } = parts;

  async function activeOnly(tenantId: string, entries: VersionEntry[], active: boolean): Promise<VersionEntry[]> {
    const modules = [...new Set(entries.map((entry) => entry.policyModule))];
    const heads = new Map(await Promise.all(modules.map(async (m) => [m, await parts.activeVersion(tenantId, m)] as const)));
    return entries.filter((entry) => (heads.get(entry.policyModule) === entry.version) === active);
  }

  return async (tenantId, query) => {
    const filter: Filter<PolicyVersionDocument> = { tenantId };
    if (query.policyModule !== undefined) filter.policyModule = query.policyModule;
    // Without `_id`, so the index covers the projection; the id follows from the key.
    const found = await versions
      .find(filter, { projection: { _id: 0, policyModule: 1, version: 1, ruleCount: 1 }, sort: { policyModule: 1, version: 1 } })
      .toArray();
    let entries: VersionEntry[] = found.map((entry) => ({ ...entry, _id: policyDocumentId(tenantId, entry.policyModule, entry.version) }));
    if (query.active !== undefined) entries = await activeOnly(tenantId, entries, query.active);
    const counts = await ruleCounts(entries);

    const end = query.offset + query.limit;
    const shares: PageShare[] = [];
    let first = 0;
    for (const entry of entries) {
      const count = counts.get(entry._id) ?? 0;
      const from = Math.max(0, query.offset - first);
      const to = Math.min(count, end - first);
      if (from < to) shares.push({ id: entry._id, from, to });
      first += count;
    }
    if (shares.length === 0) return { items: [], total: first };

    const docs = await versions
      .find(
        { _id: { $in: shares.map((share) => share.id) } },
        { projection: { _id: 1, policyModule: 1, version: 1, locale: 1, createdAt: 1, functions: 1 } },
      )
      .toArray();
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    const items: PolicyRuleEntry[] = [];
    for (const share of shares) {
      const doc = byId.get(share.id);
      if (doc === undefined) continue; // Versions are never deleted; a vanished one is skipped, not invented.
      for (const f of doc.functions.slice(share.from, share.to)) {
        items.push({ policyModule: doc.policyModule, version: doc.version, policyFunction: f.name, locale: doc.locale, createdAt: doc.createdAt });
      }
    }
    return { items, total: first };
  };
}

import type { Database, Statement } from 'better-sqlite3';
import type { PolicyRulePage, PolicyRuleQuery } from '../../policies/policy-store.js';

interface RuleRow {
  policy_module: string;
  version: number;
  policy_function: string;
  locale: string;
  created_at: string;
}

type Params = Record<string, string | number>;

/** The version a module's newest activation names (PRIMARY KEY order, read backwards: one seek). */
const ACTIVE_VERSION =
  '(SELECT a.version FROM policy_activations a WHERE a.tenant_id = v.tenant_id AND a.policy_module = v.policy_module ORDER BY a.seq DESC LIMIT 1)';

function versionFilter(byModule: boolean, active: boolean | undefined): string {
  const terms = ['v.tenant_id = @tenant', 'v.rule_count > 0'];
  if (byModule) terms.push('v.policy_module = @module');
  if (active === true) terms.push(`v.version = ${ACTIVE_VERSION}`);
  if (active === false) terms.push(`v.version IS NOT ${ACTIVE_VERSION}`);
  return terms.join(' AND ');
}

/**
 * Pages of the rule list in SQL. Both statements read the versions' entries of
 * `policy_versions_rule_counts` (one per version, never a source): the total is their sum, and
 * each version's first position is the running sum before it, so the page's rules are found by
 * their place in their version (`policy_rules` primary key) without counting the rules skipped.
 */
export function createSqliteRuleList(db: Database): (tenantId: string, query: PolicyRuleQuery) => PolicyRulePage {
  const statements = new Map<string, { page: Statement<Params, RuleRow>; total: Statement<Params, { total: number }> }>();

  function statementsFor(byModule: boolean, active: boolean | undefined) {
    const key = `${byModule}:${String(active)}`;
    let found = statements.get(key);
    if (found === undefined) {
      const where = versionFilter(byModule, active);
      found = {
        page: db.prepare<Params, RuleRow>(
          `WITH chosen AS (
             SELECT v.policy_module, v.version, v.rule_count, v.locale, v.created_at,
                    sum(v.rule_count) OVER (ORDER BY v.policy_module, v.version ROWS UNBOUNDED PRECEDING) - v.rule_count AS first
             FROM policy_versions v INDEXED BY policy_versions_rule_counts
             WHERE ${where}
           )
           SELECT c.policy_module, c.version, r.policy_function, c.locale, c.created_at
           FROM chosen c
           JOIN policy_rules r
             ON r.tenant_id = @tenant AND r.policy_module = c.policy_module AND r.version = c.version
            AND r.ordinal >= @offset - c.first AND r.ordinal < @end - c.first
           WHERE c.first < @end AND c.first + c.rule_count > @offset
           ORDER BY c.policy_module, c.version, r.ordinal`,
        ),
        total: db.prepare<Params, { total: number }>(
          `SELECT coalesce(sum(v.rule_count), 0) AS total FROM policy_versions v INDEXED BY policy_versions_rule_counts WHERE ${where}`,
        ),
      };
      statements.set(key, found);
    }
    return found;
  }

  return (tenantId, query) => {
    const byModule = query.policyModule !== undefined;
    const { page, total } = statementsFor(byModule, query.active);
    const params: Params = { tenant: tenantId, ...(byModule ? { module: query.policyModule! } : {}) };
    const rows = query.limit === 0 ? [] : page.all({ ...params, offset: query.offset, end: query.offset + query.limit });
    return {
      items: rows.map((row) => ({
        policyModule: row.policy_module,
        version: row.version,
        policyFunction: row.policy_function,
        locale: row.locale,
        createdAt: row.created_at,
      })),
      total: total.get(params)!.total,
    };
  };
}

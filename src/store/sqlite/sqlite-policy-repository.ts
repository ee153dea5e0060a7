import type { Database } from 'better-sqlite3';
import type { OwedAudit } from '../../audit/audit-outbox-store.js';
import type {
  AuditedRegistryEntry,
  PolicyActivation,
  PolicyActivationKind,
  PolicyModuleVersion,
  PolicyRepository,
  PolicyVersionEntry,
  RolloutTerms,
} from '../../policies/policy-store.js';
import { auditOutboxOfParts, normaliseOwedAudit } from '../audit-outbox-rules.js';
import {
  assertActivation,
  assertActivationExtends,
  assertAuditedEntry,
  assertModuleVersion,
  assertPage,
  assertPolicyName,
  assertRuleQuery,
  assertRunningRolloutQuery,
  assertVersionExtends,
  compareRegistryEntries,
} from '../policy-store-rules.js';
import { assertTenantId, compareText } from '../store-rules.js';
import { owedAuditValues, sqliteAuditOutbox, type SqliteKeyValue } from './sqlite-audit-outbox.js';
import { createSqliteRuleList } from './sqlite-policy-rule-list.js';

interface VersionRow {
  policy_module: string;
  version: number;
  source: string;
  locale: string;
  source_hash: string;
  functions: string;
  actor_id: string;
  created_at: string;
}

interface ActivationRow {
  policy_module: string;
  seq: number;
  kind: string;
  version: number;
  previous_version: number | null;
  highest_deployed: number;
  actor_id: string;
  occurred_at: string;
  rollout: string | null;
}

const VERSION_COLUMNS = 'policy_module, version, source, locale, source_hash, functions, actor_id, created_at';
const ACTIVATION_COLUMNS = 'policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at, rollout';

function toVersion(row: VersionRow): PolicyModuleVersion {
  return {
    policyModule: row.policy_module,
    version: row.version,
    source: row.source,
    locale: row.locale,
    sourceHash: row.source_hash,
    functions: JSON.parse(row.functions) as PolicyModuleVersion['functions'],
    actorId: row.actor_id,
    createdAt: row.created_at,
  };
}

type VersionEntryRow = Omit<VersionRow, 'source' | 'functions'> & { rule_count: number };

function toVersionEntry(row: VersionEntryRow): PolicyVersionEntry {
  return {
    policyModule: row.policy_module,
    version: row.version,
    locale: row.locale,
    sourceHash: row.source_hash,
    ruleCount: row.rule_count,
    actorId: row.actor_id,
    createdAt: row.created_at,
  };
}

function toActivation(row: ActivationRow): PolicyActivation {
  return {
    policyModule: row.policy_module,
    seq: row.seq,
    kind: row.kind as PolicyActivationKind,
    version: row.version,
    previousVersion: row.previous_version,
    highestDeployed: row.highest_deployed,
    actorId: row.actor_id,
    occurredAt: row.occurred_at,
    rollout: row.rollout === null ? null : (JSON.parse(row.rollout) as RolloutTerms),
  };
}

function registryKey(entry: AuditedRegistryEntry): SqliteKeyValue[] {
  return [entry.policyModule, entry.kind === 'version' ? entry.version : entry.seq];
}

function isPrimaryKeyConflict(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function byModuleThen<T extends { policyModule: string }>(order: (a: T, b: T) => number) {
  return (a: T, b: T) => compareText(a.policyModule, b.policyModule) || order(a, b);
}

export function createSqlitePolicyRepository(db: Database): PolicyRepository {
  const latest = db.prepare<[string, string], { version: number | null }>(
    'SELECT max(version) AS version FROM policy_versions WHERE tenant_id = ? AND policy_module = ?',
  );
  const versionExists = db.prepare<[string, string, number], { one: number }>(
    'SELECT 1 AS one FROM policy_versions WHERE tenant_id = ? AND policy_module = ? AND version = ?',
  );
  const selectVersion = db.prepare<[string, string, number], VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM policy_versions WHERE tenant_id = ? AND policy_module = ? AND version = ?`,
  );
  // Without the source: the columns after it are read from the row, the source's own pages skipped.
  const versionPage = db.prepare<[string, string, number, number], VersionEntryRow>(
    `SELECT policy_module, version, locale, source_hash, rule_count, actor_id, created_at FROM policy_versions
     WHERE tenant_id = ? AND policy_module = ? ORDER BY version LIMIT ? OFFSET ?`,
  );
  const versionsOfModule = db.prepare<[string, string], { n: number }>(
    'SELECT count(*) AS n FROM policy_versions WHERE tenant_id = ? AND policy_module = ?',
  );
  const insertVersionRow = db.prepare(
    `INSERT INTO policy_versions (tenant_id, ${VERSION_COLUMNS}, rule_count, audit_record_id, audit_claimed_by, audit_claimed_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertRuleRow = db.prepare(
    'INSERT INTO policy_rules (tenant_id, policy_module, version, ordinal, policy_function) VALUES (?, ?, ?, ?, ?)',
  );
  const versionCount = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM policy_versions WHERE tenant_id = ?');
  const listRules = createSqliteRuleList(db);
  const head = db.prepare<[string, string], ActivationRow>(
    `SELECT ${ACTIVATION_COLUMNS} FROM policy_activations WHERE tenant_id = ? AND policy_module = ? ORDER BY seq DESC LIMIT 1`,
  );
  const activationAt = db.prepare<[string, string, number], ActivationRow>(
    `SELECT ${ACTIVATION_COLUMNS} FROM policy_activations WHERE tenant_id = ? AND policy_module = ? AND seq = ?`,
  );
  const activationsOfTenant = db.prepare<[string], ActivationRow>(
    `SELECT ${ACTIVATION_COLUMNS} FROM policy_activations WHERE tenant_id = ?`,
  );
  const activationsOfModule = db.prepare<[string, string], ActivationRow>(
    `SELECT ${ACTIVATION_COLUMNS} FROM policy_activations WHERE tenant_id = ? AND policy_module = ?`,
  );
  const insertActivationRow = db.prepare(
    `INSERT INTO policy_activations (tenant_id, ${ACTIVATION_COLUMNS}, audit_record_id, audit_claimed_by, audit_claimed_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Rollouts started whose activation is still their module's head (activation seqs are contiguous).
  const runningRollouts = db.prepare<[string, string, string, number], ActivationRow & { tenant_id: string }>(
    `SELECT tenant_id, ${ACTIVATION_COLUMNS} FROM policy_activations a INDEXED BY policy_activations_rollouts_started
     WHERE kind = 'ROLLOUT_STARTED' AND (tenant_id > ? OR (tenant_id = ? AND policy_module > ?))
       AND NOT EXISTS (SELECT 1 FROM policy_activations b WHERE b.tenant_id = a.tenant_id AND b.policy_module = a.policy_module AND b.seq = a.seq + 1)
     ORDER BY tenant_id, policy_module LIMIT ?`,
  );
  const outboxes = {
    version: sqliteAuditOutbox<AuditedRegistryEntry>(db, {
      table: 'policy_versions',
      key: ['policy_module', 'version'],
      entryOf: ([policyModule, version]) => ({ kind: 'version', policyModule: policyModule as string, version: version as number }),
      keyOf: registryKey,
    }),
    activation: sqliteAuditOutbox<AuditedRegistryEntry>(db, {
      table: 'policy_activations',
      key: ['policy_module', 'seq'],
      entryOf: ([policyModule, seq]) => ({ kind: 'activation', policyModule: policyModule as string, seq: seq as number }),
      keyOf: registryKey,
    }),
  };

  // IMMEDIATE: the predecessor checks and the insert see one snapshot and hold the write lock.
  const insertVersion = db.transaction((tenantId: string, v: PolicyModuleVersion, owed: OwedAudit | null): boolean => {
    const predecessor = v.version > 1 && versionExists.get(tenantId, v.policyModule, v.version - 1) !== undefined;
    assertVersionExtends(tenantId, v, predecessor);
    try {
      insertVersionRow.run(
        tenantId, v.policyModule, v.version, v.source, v.locale, v.sourceHash, JSON.stringify(v.functions), v.actorId, v.createdAt,
        v.functions.length, ...owedAuditValues(owed),
      );
    } catch (error) {
      if (isPrimaryKeyConflict(error)) return false;
      throw error;
    }
    v.functions.forEach((f, ordinal) => insertRuleRow.run(tenantId, v.policyModule, v.version, ordinal, f.name));
    return true;
  });

  const appendActivation = db.transaction((tenantId: string, a: PolicyActivation, owed: OwedAudit | null): boolean => {
    const predecessorRow = a.seq > 1 ? activationAt.get(tenantId, a.policyModule, a.seq - 1) : undefined;
    const exists = a.version > 0 && versionExists.get(tenantId, a.policyModule, a.version) !== undefined;
    assertActivationExtends(tenantId, a, predecessorRow === undefined ? null : toActivation(predecessorRow), exists);
    try {
      insertActivationRow.run(
        tenantId, a.policyModule, a.seq, a.kind, a.version, a.previousVersion, a.highestDeployed, a.actorId, a.occurredAt,
        a.rollout === null ? null : JSON.stringify(a.rollout), ...owedAuditValues(owed),
      );
    } catch (error) {
      if (isPrimaryKeyConflict(error)) return false;
      throw error;
    }
    return true;
  });

  return {
    async latestVersion(tenantId, policyModule) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      return latest.get(tenantId, policyModule)?.version ?? 0;
    },

    async insertVersion(tenantId, version, owedAudit) {
      assertTenantId(tenantId);
      assertModuleVersion(version);
      return insertVersion.immediate(tenantId, version, owedAudit === undefined ? null : normaliseOwedAudit(owedAudit));
    },

    async getVersion(tenantId, policyModule, version) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      const row = selectVersion.get(tenantId, policyModule, version);
      return row === undefined ? null : toVersion(row);
    },

    async listVersions(tenantId, policyModule, page) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      assertPage(page);
      const rows = page.limit === 0 ? [] : versionPage.all(tenantId, policyModule, page.limit, page.offset);
      return { items: rows.map(toVersionEntry), total: versionsOfModule.get(tenantId, policyModule)!.n };
    },

    async headActivation(tenantId, policyModule) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      const row = head.get(tenantId, policyModule);
      return row === undefined ? null : toActivation(row);
    },

    async appendActivation(tenantId, activation, owedAudit) {
      assertTenantId(tenantId);
      assertActivation(activation);
      return appendActivation.immediate(tenantId, activation, owedAudit === undefined ? null : normaliseOwedAudit(owedAudit));
    },

    async listActivations(tenantId, policyModule) {
      assertTenantId(tenantId);
      if (policyModule !== undefined) assertPolicyName(policyModule, 'policyModule');
      const rows =
        policyModule === undefined ? activationsOfTenant.all(tenantId) : activationsOfModule.all(tenantId, policyModule);
      return rows.map(toActivation).sort(byModuleThen((a, b) => a.seq - b.seq));
    },

    async runningRollouts(query) {
      assertRunningRolloutQuery(query);
      const after = query.after ?? { tenantId: '', policyModule: '' };
      return runningRollouts
        .all(after.tenantId, after.tenantId, after.policyModule, query.limit)
        .map((row) => ({ tenantId: row.tenant_id, activation: toActivation(row) }));
    },

    async listRules(tenantId, query) {
      assertTenantId(tenantId);
      assertRuleQuery(query);
      return listRules(tenantId, query);
    },

    async countVersions(tenantId) {
      assertTenantId(tenantId);
      return versionCount.get(tenantId)!.n;
    },

    ...auditOutboxOfParts(outboxes, { assert: assertAuditedEntry, compare: compareRegistryEntries }),
  };
}

import type { Database } from 'better-sqlite3';
import type { AuditClaim, OwedAudit, OwedAuditEntry } from '../../audit/audit-outbox-store.js';

/**
 * The outbox statements of one table whose rows can owe an audit record. Such a table has the
 * columns `audit_record_id`, `audit_claimed_by`, `audit_claimed_until` and `audited_at` (NULL
 * record id: the row owes nothing), a partial index of its owed rows by claim end, and triggers
 * that let only the claim and the mark of an owed row change. An entry is named by the tenant and
 * the table's key columns after it.
 */
export interface SqliteOutboxTable<Entry> {
  table: string;
  /** The entry's key columns after `tenant_id`. */
  key: readonly string[];
  /** The entry of a row, from its key columns' values in `key`'s order. */
  entryOf(key: readonly SqliteKeyValue[]): Entry;
  keyOf(entry: Entry): SqliteKeyValue[];
}

export type SqliteKeyValue = string | number;

export interface SqliteAuditOutbox<Entry> {
  /** Owed rows whose claim ended before `before`, the longest-ended first, at most `limit`. */
  owed(before: string, limit: number): OwedAuditEntry<Entry>[];
  /** One statement under SQLite's write lock: the condition and the change are atomic. */
  claim(tenantId: string, entry: Entry, claim: AuditClaim, now: string): boolean;
  mark(tenantId: string, entry: Entry, at: string): void;
}

interface OwedRow {
  tenant_id: string;
  audit_record_id: string;
  audit_claimed_by: string;
  audit_claimed_until: string;
  [keyColumn: string]: SqliteKeyValue;
}

// The WHERE repeats the partial indexes' condition, so SQLite reads owed rows only.
const OWED = 'audit_record_id IS NOT NULL AND audited_at IS NULL';

/** The values of `audit_record_id, audit_claimed_by, audit_claimed_until` in an entry's insert. */
export function owedAuditValues(owed: OwedAudit | null): [string | null, string | null, string | null] {
  return [owed?.recordId ?? null, owed?.claim.owner ?? null, owed?.claim.until ?? null];
}

export function sqliteAuditOutbox<Entry>(db: Database, spec: SqliteOutboxTable<Entry>): SqliteAuditOutbox<Entry> {
  const { table, key } = spec;
  const entryWhere = `tenant_id = ? AND ${key.map((column) => `${column} = ?`).join(' AND ')} AND ${OWED}`;
  const list = db.prepare<[string, number], OwedRow>(
    `SELECT tenant_id, ${key.join(', ')}, audit_record_id, audit_claimed_by, audit_claimed_until
     FROM ${table} WHERE ${OWED} AND audit_claimed_until < ? ORDER BY audit_claimed_until LIMIT ?`,
  );
  const claim = db.prepare<SqliteKeyValue[]>(
    `UPDATE ${table} SET audit_claimed_by = ?, audit_claimed_until = ? WHERE ${entryWhere} AND audit_claimed_until < ?`,
  );
  const mark = db.prepare<SqliteKeyValue[]>(`UPDATE ${table} SET audited_at = ? WHERE ${entryWhere}`);

  return {
    owed(before, limit) {
      return list.all(before, limit).map((row) => ({
        tenantId: row.tenant_id,
        entry: spec.entryOf(key.map((column) => row[column]!)),
        recordId: row.audit_record_id,
        claim: { owner: row.audit_claimed_by, until: row.audit_claimed_until },
      }));
    },
    claim(tenantId, entry, { owner, until }, now) {
      return claim.run(owner, until, tenantId, ...spec.keyOf(entry), now).changes === 1;
    },
    mark(tenantId, entry, at) {
      mark.run(at, tenantId, ...spec.keyOf(entry));
    },
  };
}

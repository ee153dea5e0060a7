import type { Database, Statement } from 'better-sqlite3';
import type { AuditChainRepository, AuditQuery, AuditRecord } from '../ports.js';
import {
  assertBatchExtends,
  assertBatchLinked,
  assertPageSize,
  assertRecordId,
  assertTenantId,
  normaliseAuditQuery,
  parsePayload,
  predecessorSeq,
} from '../store-rules.js';

interface AuditRow {
  tenant_id: string;
  seq: number;
  id: string;
  event_type: string;
  policy_module: string | null;
  policy_function: string | null;
  actor_id: string;
  occurred_at: string;
  payload: string;
  hash: string;
  previous_hash: string;
}

const COLUMNS =
  'tenant_id, seq, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, hash, previous_hash';

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    seq: row.seq,
    eventType: row.event_type,
    policyModule: row.policy_module,
    policyFunction: row.policy_function,
    actorId: row.actor_id,
    occurredAt: row.occurred_at,
    payload: parsePayload(row.tenant_id, row.seq, row.payload),
    hash: row.hash,
    previousHash: row.previous_hash,
  };
}

function isPrimaryKeyConflict(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function createSqliteAuditChainRepository(db: Database): AuditChainRepository {
  const headStatement = db.prepare<[string], { seq: number; hash: string }>(
    'SELECT seq, hash FROM audit_records WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1',
  );
  const hashAtStatement = db.prepare<[string, number], { hash: string }>(
    'SELECT hash FROM audit_records WHERE tenant_id = ? AND seq = ?',
  );
  const insertStatement = db.prepare(
    `INSERT INTO audit_records (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const pageStatement = db.prepare<[string, number, number], AuditRow>(
    `SELECT ${COLUMNS} FROM audit_records WHERE tenant_id = ? AND seq >= ? ORDER BY seq LIMIT ?`,
  );
  const byIdStatement = db.prepare<[string, string], AuditRow>(
    `SELECT ${COLUMNS} FROM audit_records WHERE tenant_id = ? AND id = ? ORDER BY seq LIMIT 1`,
  );
  const listStatements = new Map<string, Statement<unknown[], AuditRow>>();

  // IMMEDIATE: the predecessor check and the inserts see one snapshot and hold the write lock.
  const insertBatch = db.transaction((tenantId: string, records: readonly AuditRecord[]): number => {
    const previousSeq = predecessorSeq(records);
    const predecessorHash = previousSeq === null ? undefined : hashAtStatement.get(tenantId, previousSeq)?.hash;
    assertBatchExtends(tenantId, records, predecessorHash);
    let inserted = 0;
    for (const r of records) {
      try {
        insertStatement.run(
          tenantId, r.seq, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId,
          r.occurredAt, JSON.stringify(r.payload), r.hash, r.previousHash,
        );
      } catch (error) {
        if (isPrimaryKeyConflict(error)) break;
        throw error;
      }
      inserted += 1;
    }
    return inserted;
  });

  function listStatement(query: ReturnType<typeof normaliseAuditQuery>) {
    const where = ['tenant_id = @tenantId'];
    if (query.eventType !== undefined) where.push('event_type = @eventType');
    if (query.policyModule !== undefined) where.push('policy_module = @policyModule');
    if (query.policyFunction !== undefined) where.push('policy_function = @policyFunction');
    if (query.from !== undefined) where.push('occurred_at >= @from');
    if (query.to !== undefined) where.push('occurred_at <= @to');
    if (query.before !== undefined) where.push('seq < @before');
    const sql = `SELECT ${COLUMNS} FROM audit_records WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @limit`;
    let statement = listStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], AuditRow>(sql);
      listStatements.set(sql, statement);
    }
    return statement;
  }

  return {
    async head(tenantId) {
      assertTenantId(tenantId);
      const row = headStatement.get(tenantId);
      return row === undefined ? null : { seq: row.seq, hash: row.hash };
    },

    async insertBatch(tenantId, records) {
      assertTenantId(tenantId);
      if (records.length === 0) return 0;
      assertBatchLinked(tenantId, records);
      return insertBatch.immediate(tenantId, records);
    },

    async list(tenantId, query: AuditQuery) {
      assertTenantId(tenantId);
      const normalised = normaliseAuditQuery(query);
      const rows = listStatement(normalised).all({ ...normalised, tenantId });
      return rows.map(toRecord);
    },

    async *scan(tenantId, fromSeq, pageSize) {
      assertTenantId(tenantId);
      assertPageSize(pageSize);
      let next = Math.max(1, Math.floor(fromSeq));
      for (;;) {
        const rows = pageStatement.all(tenantId, next, pageSize);
        for (const row of rows) yield toRecord(row);
        if (rows.length < pageSize) return;
        next = rows[rows.length - 1]!.seq + 1;
      }
    },

    async findById(tenantId, id) {
      assertTenantId(tenantId);
      assertRecordId(id);
      const row = byIdStatement.get(tenantId, id);
      return row === undefined ? null : toRecord(row);
    },
  };
}

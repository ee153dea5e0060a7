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

const TIME_INDEX = 'audit_records_by_occurred_at';

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

  type ListQuery = ReturnType<typeof normaliseAuditQuery>;
  /** How a list with a time window reads: through the time index, or along the chain from its newest record. */
  type WindowPlan = 'time-index' | 'seq-order';

  function prepared<Row>(sql: string): Statement<unknown[], Row> {
    let statement = listStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], AuditRow>(sql);
      listStatements.set(sql, statement);
    }
    return statement as unknown as Statement<unknown[], Row>;
  }

  function whereOf(query: ListQuery, timeColumn: string): string {
    const where = ['tenant_id = @tenantId'];
    if (query.eventType !== undefined) where.push('event_type = @eventType');
    if (query.policyModule !== undefined) where.push('policy_module = @policyModule');
    if (query.policyFunction !== undefined) where.push('policy_function = @policyFunction');
    if (query.from !== undefined) where.push(`${timeColumn} >= @from`);
    if (query.to !== undefined) where.push(`${timeColumn} <= @to`);
    if (query.before !== undefined) where.push('seq < @before');
    return where.join(' AND ');
  }

  /**
   * SQLite plans a time window without knowing how many records it holds, and may read a whole
   * chain through the time index only to sort it by seq (300 ms for 140,000 records). So the window
   * is first counted through that index, up to twice the limit: a window holding fewer is read
   * through the index; a fuller one along the chain from the newest record, which stops at the limit.
   */
  function windowPlan(tenantId: string, query: ListQuery): WindowPlan | null {
    if (query.from === undefined && query.to === undefined) return null;
    if (query.eventType !== undefined || query.policyModule !== undefined || query.policyFunction !== undefined) return null;
    const probe = 2 * query.limit;
    // The probe is bound, not written into the text: one prepared statement per shape of query.
    const counted = prepared<{ found: number }>(
      `SELECT count(*) AS found FROM (SELECT 1 FROM audit_records INDEXED BY ${TIME_INDEX} WHERE ${whereOf(query, 'occurred_at')} LIMIT @probe)`,
    ).get({ ...query, tenantId, probe });
    return (counted?.found ?? 0) < probe ? 'time-index' : 'seq-order';
  }

  function listStatement(query: ListQuery, plan: WindowPlan | null) {
    // A unary + keeps SQLite off the time index: it walks the primary key from the newest record.
    const where = whereOf(query, plan === 'seq-order' ? '+occurred_at' : 'occurred_at');
    const from = plan === 'time-index' ? `audit_records INDEXED BY ${TIME_INDEX}` : 'audit_records';
    return prepared<AuditRow>(`SELECT ${COLUMNS} FROM ${from} WHERE ${where} ORDER BY seq DESC LIMIT @limit`);
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
      const rows = listStatement(normalised, windowPlan(tenantId, normalised)).all({ ...normalised, tenantId });
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

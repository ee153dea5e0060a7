import type { Database, Statement } from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditChainRepository, AuditQuery, StoredAuditRecord } from '../../audit/audit-chain-store.js';
import { assertPageSize, assertRecordId, assertTenantId, assertTypeAfter, normaliseAuditQuery } from '../store-rules.js';
import { prepareChainPage, STORED_AUDIT_COLUMNS as COLUMNS, toAuditRecord } from './sqlite-audit-rows.js';
import { sqlitePageSource } from './sqlite-chain-page-reader.js';

const TIME_INDEX = 'audit_records_by_occurred_at';
/** Seqs a full time window is read along the chain at a time (a few ms of stepping over records), the event loop free in between. */
const CHAIN_STRIDE = 16_384;

export function createSqliteAuditChainRepository(db: Database): AuditChainRepository {
  const headStatement = db.prepare<[string], { seq: number; hash: string }>(
    'SELECT seq, hash FROM audit_records WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1',
  );
  const page = prepareChainPage(db);
  const byIdStatement = db.prepare<[string, string], StoredAuditRecord>(
    `SELECT ${COLUMNS} FROM audit_records WHERE tenant_id = ? AND id = ? ORDER BY seq LIMIT 1`,
  );
  const typeAfterStatement = db.prepare<[string, string, number, number], StoredAuditRecord>(
    `SELECT ${COLUMNS} FROM audit_records INDEXED BY audit_records_by_event_type WHERE tenant_id = ? AND event_type = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const listStatements = new Map<string, Statement<unknown[], StoredAuditRecord>>();

  type ListQuery = ReturnType<typeof normaliseAuditQuery>;
  /** How a list with a time window reads: through the time index, or along the chain from its newest record. */
  type WindowPlan = 'time-index' | 'seq-order';

  function prepared<Row>(sql: string): Statement<unknown[], Row> {
    let statement = listStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], StoredAuditRecord>(sql);
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
   * through the index; a fuller one along the chain from the newest record, which stops at the limit
   * (listAlongChain).
   */
  function windowPlan(tenantId: string, query: ListQuery): WindowPlan | null {
    if (query.from === undefined && query.to === undefined) return null;
    if (query.eventType !== undefined || query.policyModule !== undefined || query.policyFunction !== undefined) return null;
    const probe = 2 * query.limit;
    // The window is counted without `before`: filtered by it, a window lying above `before` would be
    // read whole through the index to find nothing (0.45 s for 600,000 records, for one point). A
    // window that holds fewer records is read through the index either way; a fuller one along the
    // chain from `before` down. The probe is bound, not written into the text: one statement per shape.
    const { before: _below, ...window } = query;
    const counted = prepared<{ found: number }>(
      `SELECT count(*) AS found FROM (SELECT 1 FROM audit_records INDEXED BY ${TIME_INDEX} WHERE ${whereOf(window, 'occurred_at')} LIMIT @probe)`,
    ).get({ ...window, tenantId, probe });
    return (counted?.found ?? 0) < probe ? 'time-index' : 'seq-order';
  }

  function listStatement(query: ListQuery, plan: 'time-index' | null) {
    const from = plan === 'time-index' ? `audit_records INDEXED BY ${TIME_INDEX}` : 'audit_records';
    return prepared<StoredAuditRecord>(`SELECT ${COLUMNS} FROM ${from} WHERE ${whereOf(query, 'occurred_at')} ORDER BY seq DESC LIMIT @limit`);
  }

  /**
   * A full time window read along the chain from its newest record (below `before`) down,
   * CHAIN_STRIDE seqs at a time with the event loop free in between: a window far below the head
   * steps over every newer record (about 0.5 µs each), which for a chain of 600,000 held the event
   * loop for 300 ms in one query. The answer is the one a single query gives.
   */
  async function listAlongChain(tenantId: string, query: ListQuery): Promise<StoredAuditRecord[]> {
    const { before, ...window } = query;
    // A unary + keeps SQLite off the time index: it walks the primary key down from `upper`.
    const statement = prepared<StoredAuditRecord>(
      `SELECT ${COLUMNS} FROM audit_records WHERE ${whereOf(window, '+occurred_at')} AND seq < @upper AND seq >= @lower ORDER BY seq DESC LIMIT @limit`,
    );
    const rows: StoredAuditRecord[] = [];
    let upper = Math.min(before ?? Number.MAX_SAFE_INTEGER, (headStatement.get(tenantId)?.seq ?? 0) + 1);
    while (upper > 1) {
      const lower = Math.max(1, upper - CHAIN_STRIDE);
      rows.push(...statement.all({ ...window, tenantId, upper, lower, limit: query.limit - rows.length }));
      if (rows.length >= query.limit || lower === 1) break;
      upper = lower;
      await nextTurn();
    }
    return rows;
  }

  return {
    async head(tenantId) {
      assertTenantId(tenantId);
      const row = headStatement.get(tenantId);
      return row === undefined ? null : { seq: row.seq, hash: row.hash };
    },

    async list(tenantId, query: AuditQuery) {
      assertTenantId(tenantId);
      const normalised = normaliseAuditQuery(query);
      const plan = windowPlan(tenantId, normalised);
      const rows = plan === 'seq-order' ? await listAlongChain(tenantId, normalised) : listStatement(normalised, plan).all({ ...normalised, tenantId });
      return rows.map((row) => toAuditRecord(tenantId, row));
    },

    async listTypeAfter(tenantId, eventType, afterSeq, limit) {
      assertTenantId(tenantId);
      assertTypeAfter(eventType, afterSeq, limit);
      return typeAfterStatement.all(tenantId, eventType, afterSeq, limit).map((row) => toAuditRecord(tenantId, row));
    },

    async *scan(tenantId, fromSeq, pageSize) {
      assertTenantId(tenantId);
      assertPageSize(pageSize);
      let next = Math.max(1, Math.floor(fromSeq));
      for (;;) {
        const rows = page(tenantId, next, pageSize);
        for (const row of rows) yield toAuditRecord(tenantId, row);
        if (rows.length < pageSize) return;
        next = rows[rows.length - 1]!.seq + 1;
      }
    },

    async findById(tenantId, id) {
      assertTenantId(tenantId);
      assertRecordId(id);
      const row = byIdStatement.get(tenantId, id);
      return row === undefined ? null : toAuditRecord(tenantId, row);
    },

    pageSource() {
      return sqlitePageSource(db);
    },
  };
}

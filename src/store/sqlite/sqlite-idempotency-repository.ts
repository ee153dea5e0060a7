import type { Database } from 'better-sqlite3';
import type { IdempotencyRecord, IdempotencyRepository } from '../../idempotency/idempotency-store.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';

interface IdempotencyRow {
  key: string;
  request_hash: string;
  owner: string;
  status: number | null;
  body: string | null;
  created_at: string;
  expires_at: string;
}

export function createSqliteIdempotencyRepository(db: Database): IdempotencyRepository {
  const select = db.prepare<[string, string, number], IdempotencyRow>(
    `SELECT key, request_hash, owner, status, body, created_at, expires_at FROM idempotency_records
     WHERE tenant_id = ? AND key = ? AND expires_at_ms > ?`,
  );
  // An expired record is dead: the next writer replaces it.
  const removeExpired = db.prepare('DELETE FROM idempotency_records WHERE tenant_id = ? AND key = ? AND expires_at_ms <= ?');
  const insert = db.prepare(
    `INSERT OR IGNORE INTO idempotency_records
     (tenant_id, key, request_hash, owner, status, body, created_at, expires_at, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const complete = db.prepare(
    `UPDATE idempotency_records SET status = ?, body = ?, expires_at = ?, expires_at_ms = ?
     WHERE tenant_id = ? AND key = ? AND owner = ? AND status IS NULL`,
  );
  const release = db.prepare('DELETE FROM idempotency_records WHERE tenant_id = ? AND key = ? AND owner = ? AND status IS NULL');

  const putIfAbsent = db.transaction((tenantId: string, record: IdempotencyRecord, nowMs: number): boolean => {
    removeExpired.run(tenantId, record.key, nowMs);
    const expiresAt = normaliseInstant(record.expiresAt, 'expiresAt');
    const response = record.response;
    const result = insert.run(
      tenantId, record.key, record.requestHash, record.owner,
      response === null ? null : response.status, response === null ? null : JSON.stringify(response.body ?? null),
      normaliseInstant(record.createdAt, 'createdAt'), expiresAt, Date.parse(expiresAt),
    );
    return result.changes === 1;
  });

  return {
    async get(tenantId, key, now) {
      assertTenantId(tenantId);
      const row = select.get(tenantId, key, now.getTime());
      if (row === undefined) return null;
      return {
        key: row.key,
        requestHash: row.request_hash,
        owner: row.owner,
        response: row.status === null ? null : { status: row.status, body: JSON.parse(row.body ?? 'null') as unknown },
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      };
    },
    async putIfAbsent(tenantId, record, now) {
      assertTenantId(tenantId);
      return putIfAbsent.immediate(tenantId, record, now.getTime());
    },
    async complete(tenantId, key, owner, response, expiresAt) {
      assertTenantId(tenantId);
      const at = normaliseInstant(expiresAt, 'expiresAt');
      return complete.run(response.status, JSON.stringify(response.body ?? null), at, Date.parse(at), tenantId, key, owner).changes === 1;
    },
    async release(tenantId, key, owner) {
      assertTenantId(tenantId);
      release.run(tenantId, key, owner);
    },
  };
}

import { AuditBatchError, AuditRecordCorruptError } from '../audit/audit-chain-errors.js';
import type { AuditQuery, AuditRecord } from '../audit/audit-chain-store.js';
import { StoreArgumentError } from './store-argument-error.js';

/** Checks shared by both adapters so they accept and refuse exactly the same input. */

/** Structure only: the tenant pattern (src/kernel/tenant-id.ts) is checked where ids enter the service. */
export function assertTenantId(tenantId: string): void {
  if (typeof tenantId !== 'string' || tenantId.length === 0) {
    throw new StoreArgumentError('tenant id must be a non-empty string');
  }
}

export function assertRecordId(id: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new StoreArgumentError('record id must be a non-empty string');
}

/** The arguments of `listTypeAfter`: a type, a seq (0 from the first record) and a positive limit. */
export function assertTypeAfter(eventType: string, afterSeq: number, limit: number): void {
  if (typeof eventType !== 'string' || eventType.length === 0) throw new StoreArgumentError('event type must be a non-empty string');
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new StoreArgumentError('afterSeq must be a non-negative integer');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreArgumentError('limit must be a positive integer');
}

/** Internal consistency of a batch, checked before any storage access. */
export function assertBatchLinked(tenantId: string, records: readonly AuditRecord[]): void {
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i]!;
    if (!Number.isSafeInteger(record.seq) || record.seq < 1) {
      throw new AuditBatchError(tenantId, record.seq, 'seq must be a positive integer');
    }
    if (i === 0) continue;
    const previous = records[i - 1]!;
    if (record.seq !== previous.seq + 1) {
      throw new AuditBatchError(tenantId, record.seq, `expected seq ${previous.seq + 1}`);
    }
    if (record.previousHash !== previous.hash) {
      throw new AuditBatchError(tenantId, record.seq, `previousHash does not match the hash of seq ${previous.seq}`);
    }
  }
}

/**
 * occurredAt is stored as `toISOString()` text, so bounds are normalised the same way before the
 * lexicographic comparison (`…00Z` and `…00.000Z` name the same instant but do not sort alike).
 */
export function normaliseInstant(value: string, name: string): string {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new StoreArgumentError(`${name} must be an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}

/** An AuditQuery whose fields were checked, its instants in `toISOString()` form. */
export type NormalisedAuditQuery = AuditQuery;

export function normaliseAuditQuery(query: AuditQuery): NormalisedAuditQuery {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
    throw new StoreArgumentError('limit must be a positive integer');
  }
  if (query.before !== undefined && (!Number.isSafeInteger(query.before) || query.before < 1)) {
    throw new StoreArgumentError('before must be a positive integer');
  }
  const out: NormalisedAuditQuery = { limit: query.limit };
  if (query.eventType !== undefined) out.eventType = query.eventType;
  if (query.policyModule !== undefined) out.policyModule = query.policyModule;
  if (query.policyFunction !== undefined) out.policyFunction = query.policyFunction;
  if (query.from !== undefined) out.from = normaliseInstant(query.from, 'from');
  if (query.to !== undefined) out.to = normaliseInstant(query.to, 'to');
  if (query.before !== undefined) out.before = query.before;
  return out;
}

export function assertPageSize(pageSize: number): void {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new StoreArgumentError('pageSize must be a positive integer');
  }
}

export function parsePayload(tenantId: string, seq: number, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AuditRecordCorruptError(tenantId, seq, `payload is not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AuditRecordCorruptError(tenantId, seq, 'payload is not a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Both adapters sort with this (not in the backend), so they answer in exactly the same order. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

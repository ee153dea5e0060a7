import type { Database } from 'better-sqlite3';
import { GENESIS_PREVIOUS_HASH } from '../../audit/audit-chain-store.js';
import type { AuditLinkRepository, HeldLease, UnlinkedAuditRecord } from '../../audit/audit-link-store.js';
import { assertLease, assertLinkBatch, assertUnlinkedEntries, leaseTimes } from '../audit-link-rules.js';
import { assertPageSize, assertRecordId, assertTenantId, normaliseInstant, parsePayload } from '../store-rules.js';

interface UnlinkedRow {
  id: string;
  event_type: string;
  policy_module: string | null;
  policy_function: string | null;
  actor_id: string;
  occurred_at: string;
  payload: string;
  content_hash: string;
  stored_at: string;
  tenant_id: string;
  given_id: number;
}

interface HeadRow {
  seq: number;
  hash: string | null;
  holder: string;
  epoch: number;
  lease_until: string;
}

/**
 * tenantsWaiting looks at this many of the earliest stored records still waiting (no index but the
 * table's own order), so a sweep costs the same however large a backlog grows; a tenant behind a
 * larger backlog is found once that one shrinks.
 */
const WAITING_SCAN_LIMIT = 10_000;

const UNLINKED_COLUMNS = 'tenant_id, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, content_hash, stored_at, given_id';

/** The payload as stored: its canonical JSON as the append made it, else written now. */
function storedPayloadText(record: { payload: Record<string, unknown>; payloadText?: string }): string {
  return record.payloadText ?? JSON.stringify(record.payload);
}

function toUnlinked(row: UnlinkedRow): UnlinkedAuditRecord {
  return {
    id: row.id,
    eventType: row.event_type,
    policyModule: row.policy_module,
    policyFunction: row.policy_function,
    actorId: row.actor_id,
    occurredAt: row.occurred_at,
    // Not yet in the chain: no seq to name in an error, so 0.
    payload: parsePayload(row.tenant_id, 0, row.payload),
    contentHash: row.content_hash,
    storedAt: row.stored_at,
    ...(row.given_id === 1 ? { givenId: true as const } : {}),
  };
}

/**
 * Unlinked records and linker leases in SQLite. A link is one IMMEDIATE transaction (the lease and
 * head check, the chain inserts, the removal from the unlinked records), so nothing is ever left
 * half-written and a take-over has nothing to complete.
 */
export function createSqliteAuditLinkRepository(db: Database): AuditLinkRepository {
  // Only a record stored already is skipped: OR IGNORE would also drop, silently, a row missing a
  // required field, and the insert would still resolve as durable.
  const insertUnlinked = db.prepare(
    `INSERT INTO audit_unlinked (${UNLINKED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, id) DO NOTHING`,
  );
  const headRow = db.prepare<[string], HeadRow>('SELECT seq, hash, holder, epoch, lease_until FROM audit_chain_heads WHERE tenant_id = ?');
  const chainHead = db.prepare<[string], { seq: number; hash: string }>('SELECT seq, hash FROM audit_records WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1');
  const insertHead = db.prepare('INSERT INTO audit_chain_heads (tenant_id, seq, hash, holder, epoch, lease_until) VALUES (?, ?, ?, ?, 1, ?)');
  const renewLease = db.prepare('UPDATE audit_chain_heads SET lease_until = ? WHERE tenant_id = ? AND holder = ? AND epoch = ?');
  const takeOver = db.prepare('UPDATE audit_chain_heads SET holder = ?, epoch = epoch + 1, lease_until = ? WHERE tenant_id = ? AND lease_until < ? AND holder = ? AND epoch = ?');
  const endLease = db.prepare('UPDATE audit_chain_heads SET lease_until = ? WHERE tenant_id = ? AND holder = ? AND epoch = ?');
  const moveHead = db.prepare('UPDATE audit_chain_heads SET seq = ?, hash = ? WHERE tenant_id = ? AND holder = ? AND epoch = ? AND seq = ?');
  const insertRecord = db.prepare(
    'INSERT INTO audit_records (tenant_id, seq, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteUnlinked = db.prepare('DELETE FROM audit_unlinked WHERE tenant_id = ? AND id = ?');
  // Only the page's own rows are looked up in the chain: asking it of the whole backlog at every
  // page made linking a backlog quadratic.
  const unlinkedPage = db.prepare<[string, number], UnlinkedRow & { linked: number }>(
    `SELECT ${UNLINKED_COLUMNS},
       u.given_id = 1 AND EXISTS (SELECT 1 FROM audit_records r WHERE r.tenant_id = u.tenant_id AND r.id = u.id) AS linked
     FROM audit_unlinked u WHERE u.tenant_id = ? ORDER BY u.stored_seq LIMIT ?`,
  );
  const unlinkedById = db.prepare<[string, string], UnlinkedRow>(`SELECT ${UNLINKED_COLUMNS} FROM audit_unlinked WHERE tenant_id = ? AND id = ?`);
  const summary = db.prepare<[string], { count: number; oldest: string | null }>(
    'SELECT count(*) AS count, min(stored_at) AS oldest FROM audit_unlinked WHERE tenant_id = ?',
  );
  const waiting = db.prepare<[string, number], { tenant_id: string }>(
    `SELECT tenant_id, min(stored_at) AS oldest FROM (
       SELECT tenant_id, stored_at FROM audit_unlinked ORDER BY stored_seq LIMIT ${WAITING_SCAN_LIMIT}
     ) WHERE stored_at < ? GROUP BY tenant_id ORDER BY oldest LIMIT ?`,
  );

  const store = db.transaction((entries: Parameters<AuditLinkRepository['storeUnlinked']>[0]) => {
    for (const { tenantId, record: r } of entries) {
      insertUnlinked.run(tenantId, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt, storedPayloadText(r), r.contentHash, r.storedAt, r.givenId ? 1 : 0);
    }
  });

  const take = db.transaction((tenantId: string, holder: string, until: string, now: string): HeldLease | null => {
    let row = headRow.get(tenantId);
    if (row === undefined) {
      // First link of this tenant: the head row starts from the chain as stored.
      const head = chainHead.get(tenantId);
      insertHead.run(tenantId, head?.seq ?? 0, head?.hash ?? null, holder, until);
      row = headRow.get(tenantId)!;
    } else if (row.holder === holder) {
      renewLease.run(until, tenantId, holder, row.epoch);
    } else if (row.lease_until < now) {
      takeOver.run(holder, until, tenantId, now, row.holder, row.epoch);
    } else {
      return null;
    }
    row = headRow.get(tenantId)!;
    if (row.holder !== holder) return null;
    return { holder, epoch: row.epoch, until: row.lease_until, head: row.seq === 0 ? null : { seq: row.seq, hash: row.hash! } };
  });

  const link = db.transaction((tenantId: string, holder: string, epoch: number, records: Parameters<AuditLinkRepository['link']>[2], unstored: boolean): boolean => {
    const first = records[0]!;
    const last = records[records.length - 1]!;
    const row = headRow.get(tenantId);
    if (row === undefined || row.holder !== holder || row.epoch !== epoch) return false;
    if (row.seq !== first.seq - 1 || (row.hash ?? GENESIS_PREVIOUS_HASH) !== first.previousHash) return false;
    moveHead.run(last.seq, last.hash, tenantId, holder, epoch, row.seq);
    for (const r of records) {
      insertRecord.run(tenantId, r.seq, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt, storedPayloadText(r), r.hash, r.previousHash);
      // Records stored nowhere yet (linked in the write that stores them) were never unlinked ones.
      if (!unstored) deleteUnlinked.run(tenantId, r.id);
    }
    return true;
  });

  const dropLinked = db.transaction((tenantId: string, ids: readonly string[]) => {
    for (const id of ids) deleteUnlinked.run(tenantId, id);
  });

  return {
    // The chain's insert and the removal from the unlinked records are one transaction.
    linksInOneWrite: true,
    async storeUnlinked(entries) {
      assertUnlinkedEntries(entries);
      if (entries.length > 0) store.immediate(entries);
    },

    async takeLease(tenantId, holder, until, now) {
      assertTenantId(tenantId);
      assertLease({ holder, epoch: 1, until });
      const times = leaseTimes(until, now);
      return take.immediate(tenantId, holder, times.until, times.now);
    },

    async releaseLease(tenantId, lease) {
      assertTenantId(tenantId);
      assertLease(lease);
      // A lease that ended long ago: any process may take it at once.
      endLease.run(new Date(0).toISOString(), tenantId, lease.holder, lease.epoch);
    },

    async unlinked(tenantId, limit) {
      assertTenantId(tenantId);
      assertPageSize(limit);
      // A record stored again after its link (an owed record written twice) is dropped, not linked
      // twice. The page is read without a write lock; only a page holding such records takes one.
      for (;;) {
        const rows = unlinkedPage.all(tenantId, limit);
        const linked = rows.filter((row) => row.linked === 1).map((row) => row.id);
        if (linked.length === 0) return rows.map(toUnlinked);
        dropLinked.immediate(tenantId, linked);
      }
    },

    async link(tenantId, lease, records, options = {}) {
      assertTenantId(tenantId);
      assertLease(lease);
      assertLinkBatch(tenantId, records);
      return link.immediate(tenantId, lease.holder, lease.epoch, records, options.unstored === true);
    },

    async findUnlinked(tenantId, id) {
      assertTenantId(tenantId);
      assertRecordId(id);
      const row = unlinkedById.get(tenantId, id);
      return row === undefined ? null : toUnlinked(row);
    },

    async unlinkedSummary(tenantId) {
      assertTenantId(tenantId);
      const row = summary.get(tenantId)!;
      return { count: row.count, oldestStoredAt: row.oldest };
    },

    async tenantsWaiting(storedBefore, limit) {
      assertPageSize(limit);
      return waiting.all(normaliseInstant(storedBefore, 'storedBefore'), limit).map((row) => row.tenant_id);
    },
  };
}

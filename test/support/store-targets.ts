import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { AuditRecord } from '../../src/audit/index.js';
import {
  COLLECTIONS,
  openMongoStore,
  openSqliteStore,
  type MongoStore,
  type SqliteStore,
  type Store,
} from '../../src/store/index.js';

/**
 * One isolated backend (a temp SQLite file, or a fresh MongoDB database) that tests can open any
 * number of connections to, plus raw access that bypasses the repositories: to play another
 * writer, or an attacker editing the stored chain.
 */
export interface StoreTarget {
  readonly kind: 'sqlite' | 'mongo';
  /** A new, independent connection to this target's backend. Closed by dispose(). */
  connect(): Promise<Store>;
  /** Stores a record as is, with no chain checks. */
  rawInsertAudit(tenantId: string, record: AuditRecord): Promise<void>;
  /** Overwrites stored fields of one record (`payload` as stored JSON text). */
  rawTamperAudit(tenantId: string, seq: number, changes: RawAuditChanges): Promise<void>;
  rawDeleteAudit(tenantId: string, seq: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface RawAuditChanges {
  payloadText?: string;
  hash?: string;
  previousHash?: string;
  actorId?: string;
  seq?: number;
}

export function uniqueDatabaseName(prefix = 'pe_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

const SQLITE_COLUMNS: Record<keyof RawAuditChanges, string> = {
  payloadText: 'payload',
  hash: 'hash',
  previousHash: 'previous_hash',
  actorId: 'actor_id',
  seq: 'seq',
};

export function sqliteTarget(): StoreTarget & { readonly path: string; connectSqlite(): Promise<SqliteStore> } {
  const dir = mkdtempSync(join(tmpdir(), 'pe-store-'));
  const path = join(dir, 'policy-engine.db');
  const opened: SqliteStore[] = [];
  let admin: SqliteStore | undefined;
  const connectSqlite = async () => {
    const store = await openSqliteStore(path);
    opened.push(store);
    return store;
  };
  const adminDb = async () => (admin ??= await connectSqlite()).raw;
  return {
    kind: 'sqlite',
    path,
    connect: connectSqlite,
    connectSqlite,
    async rawInsertAudit(tenantId, r) {
      (await adminDb())
        .prepare(
          `INSERT INTO audit_records (tenant_id, seq, id, event_type, policy_module, policy_function, actor_id,
           occurred_at, payload, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(tenantId, r.seq, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt,
          JSON.stringify(r.payload), r.hash, r.previousHash);
    },
    async rawTamperAudit(tenantId, seq, changes) {
      const db = await adminDb();
      const entries = Object.entries(changes) as [keyof RawAuditChanges, string | number][];
      // What an attacker with file access does first: the append-only triggers are no protection.
      db.exec('DROP TRIGGER IF EXISTS audit_records_no_update');
      db.prepare(
        `UPDATE audit_records SET ${entries.map(([k]) => `${SQLITE_COLUMNS[k]} = ?`).join(', ')} WHERE tenant_id = ? AND seq = ?`,
      ).run(...entries.map(([, v]) => v), tenantId, seq);
    },
    async rawDeleteAudit(tenantId, seq) {
      const db = await adminDb();
      db.exec('DROP TRIGGER IF EXISTS audit_records_no_delete');
      db.prepare('DELETE FROM audit_records WHERE tenant_id = ? AND seq = ?').run(tenantId, seq);
    },
    async dispose() {
      for (const store of opened.splice(0)) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const MONGO_FIELDS: Record<keyof RawAuditChanges, string> = {
  payloadText: 'payload',
  hash: 'hash',
  previousHash: 'previousHash',
  actorId: 'actorId',
  seq: 'seq',
};

export function mongoTarget(url: string): StoreTarget & { readonly database: string; connectMongo(): Promise<MongoStore> } {
  const database = uniqueDatabaseName();
  const opened: MongoStore[] = [];
  let admin: MongoStore | undefined;
  const connectMongo = async () => {
    const store = await openMongoStore({ url, database });
    opened.push(store);
    return store;
  };
  const audit = async () => (admin ??= await connectMongo()).raw.db.collection(COLLECTIONS.audit);
  return {
    kind: 'mongo',
    database,
    connect: connectMongo,
    connectMongo,
    async rawInsertAudit(tenantId, r) {
      await (await audit()).insertOne({
        _id: `${tenantId}:${r.seq}` as never,
        tenantId,
        seq: r.seq,
        id: r.id,
        eventType: r.eventType,
        policyModule: r.policyModule,
        policyFunction: r.policyFunction,
        actorId: r.actorId,
        occurredAt: r.occurredAt,
        payload: JSON.stringify(r.payload),
        hash: r.hash,
        previousHash: r.previousHash,
      });
    },
    async rawTamperAudit(tenantId, seq, changes) {
      const set = Object.fromEntries(
        (Object.entries(changes) as [keyof RawAuditChanges, unknown][]).map(([k, v]) => [MONGO_FIELDS[k], v]),
      );
      const result = await (await audit()).updateOne({ tenantId, seq }, { $set: set });
      if (result.matchedCount !== 1) throw new Error(`no audit record ${seq} for tenant ${tenantId}`);
    },
    async rawDeleteAudit(tenantId, seq) {
      await (await audit()).deleteOne({ tenantId, seq });
    },
    async dispose() {
      const client = new MongoClient(url);
      try {
        await client.db(database).dropDatabase();
      } finally {
        await client.close();
      }
      for (const store of opened.splice(0)) await store.close();
    },
  };
}

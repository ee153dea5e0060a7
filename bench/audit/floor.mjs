// The raw floor of appending to a chain: the same records, hashed with node:crypto and inserted in
// batches into the chain's own table and indexes (better-sqlite3) or collection and indexes (the bare
// MongoDB driver), by one writer that knows the head. Nothing of the service's code: what the parts
// under the recorder and linker can do at best, measured in the same run.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { MongoClient, ObjectId } from 'mongodb';
import { CHAIN_SCHEMA, GENESIS } from '../support/chain-schema.mjs';
import { timeOrderedUuid } from '../support/time-ordered-uuid.mjs';

/** The records a chain of `total` would hold: content text, hash and link, built as they are inserted. */
function* chainRows(total, event) {
  let previousHash = GENESIS;
  for (let i = 0; i < total; i += 1) {
    const e = event(i);
    const id = timeOrderedUuid();
    const occurredAt = new Date().toISOString();
    const payload = JSON.stringify(e.payload);
    const content = `{"actorId":${JSON.stringify(e.actorId)},"eventType":${JSON.stringify(e.eventType)},"id":"${id}","occurredAt":"${occurredAt}","payload":${payload},"policyFunction":${JSON.stringify(e.policyFunction)},"policyModule":${JSON.stringify(e.policyModule)},"previousHash":"${previousHash}","seq":${i + 1}}`;
    const hash = createHash('sha256').update(content).digest('hex');
    yield { seq: i + 1, id, ...e, occurredAt, payload, hash, previousHash };
    previousHash = hash;
  }
}

/** Seconds to write `total` records into a fresh SQLite file with the chain's schema. */
export function sqliteFloor(path, total, batchSize, event) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.exec(CHAIN_SCHEMA);
  const insert = db.prepare('INSERT INTO audit_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const write = db.transaction((rows) => {
    for (const r of rows) insert.run('floor', r.seq, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt, r.payload, r.hash, r.previousHash);
  });
  const started = performance.now();
  let batch = [];
  for (const row of chainRows(total, event)) {
    batch.push(row);
    if (batch.length === batchSize) {
      write.immediate(batch);
      batch = [];
    }
  }
  if (batch.length > 0) write.immediate(batch);
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return seconds;
}

/**
 * Seconds to store `total` records and link them, the two steps the service takes, from raw parts:
 * batches inserted into a table of waiting records with its indexes (the service's audit_unlinked),
 * then, batch by batch, read back in stored order, hashed onto the head, inserted into the chain
 * and removed from the waiting table in one transaction. The bound the design itself sets.
 */
export function sqliteStoreThenLinkFloor(path, total, batchSize, event) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.exec(`${CHAIN_SCHEMA}
    CREATE TABLE waiting (stored_seq INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, id TEXT NOT NULL, event_type TEXT NOT NULL,
      policy_module TEXT, policy_function TEXT, actor_id TEXT NOT NULL, occurred_at TEXT NOT NULL, payload TEXT NOT NULL,
      content_hash TEXT NOT NULL, stored_at TEXT NOT NULL, UNIQUE (tenant_id, id));
    CREATE INDEX waiting_by_tenant ON waiting (tenant_id, stored_seq);`);
  const store = db.prepare('INSERT INTO waiting (tenant_id, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, content_hash, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const page = db.prepare('SELECT * FROM waiting WHERE tenant_id = ? ORDER BY stored_seq LIMIT ?');
  const insert = db.prepare('INSERT INTO audit_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM waiting WHERE stored_seq = ?');
  const storeBatch = db.transaction((rows) => {
    for (const r of rows) store.run('floor', r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt, r.payload, r.contentHash, r.storedAt);
  });
  let head = { seq: 0, hash: GENESIS };
  const link = db.transaction(() => {
    for (const w of page.all('floor', batchSize)) {
      const seq = head.seq + 1;
      const text = `{"actorId":${JSON.stringify(w.actor_id)},"eventType":${JSON.stringify(w.event_type)},"id":"${w.id}","occurredAt":"${w.occurred_at}","payload":${w.payload},"policyFunction":${JSON.stringify(w.policy_function)},"policyModule":${JSON.stringify(w.policy_module)},"previousHash":"${head.hash}","seq":${seq}}`;
      const hash = createHash('sha256').update(text).digest('hex');
      insert.run('floor', seq, w.id, w.event_type, w.policy_module, w.policy_function, w.actor_id, w.occurred_at, w.payload, hash, head.hash);
      remove.run(w.stored_seq);
      head = { seq, hash };
    }
  });
  const started = performance.now();
  for (let i = 0; i < total; i += batchSize) {
    const rows = [];
    for (let j = i; j < Math.min(total, i + batchSize); j += 1) {
      const e = event(j);
      const id = timeOrderedUuid();
      const occurredAt = new Date().toISOString();
      const payload = JSON.stringify(e.payload);
      const content = `{"actorId":${JSON.stringify(e.actorId)},"eventType":${JSON.stringify(e.eventType)},"id":"${id}","occurredAt":"${occurredAt}","payload":${payload},"policyFunction":${JSON.stringify(e.policyFunction)},"policyModule":${JSON.stringify(e.policyModule)}}`;
      rows.push({ id, ...e, occurredAt, payload, contentHash: createHash('sha256').update(content).digest('hex'), storedAt: occurredAt });
    }
    storeBatch.immediate(rows);
    link.immediate();
  }
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return seconds;
}

/** Seconds to write `total` records into a fresh collection with the chain's indexes. */
export async function mongoFloor(url, database, total, batchSize, event) {
  const client = await MongoClient.connect(url);
  try {
    const collection = client.db(database).collection('floor_audit_records');
    for (const key of [{ tenantId: 1, seq: 1 }, { tenantId: 1, eventType: 1, seq: -1 }, { tenantId: 1, policyModule: 1, policyFunction: 1, seq: -1 }, { tenantId: 1, occurredAt: 1 }, { tenantId: 1, id: 1 }]) {
      await collection.createIndexes([{ key, ...(key.seq === 1 && Object.keys(key).length === 2 ? { unique: true } : {}) }]);
    }
    const started = performance.now();
    let batch = [];
    for (const r of chainRows(total, event)) {
      batch.push({ _id: `floor:${r.seq}`, tenantId: 'floor', ...r });
      if (batch.length === batchSize) {
        await collection.insertMany(batch, { ordered: true });
        batch = [];
      }
    }
    if (batch.length > 0) await collection.insertMany(batch, { ordered: true });
    return (performance.now() - started) / 1000;
  } finally {
    await client.close();
  }
}

/**
 * Seconds for the service's two steps on MongoDB from the bare driver, with `writers` connections
 * storing at once and one more linking: each writer inserts its share of the records into a
 * collection of waiting records (with the service's indexes on it) in batches; the linker reads a
 * tenant's waiting records without a sort (as the service does), hashes them onto the head, inserts
 * them into the chain collection (its indexes) and deletes them from the waiting one, its batch
 * doubling up to 8× while full. What the store allows one writer and several, measured alike.
 */
export async function mongoStoreThenLinkFloor(url, database, total, batchSize, event, writers) {
  const clients = await Promise.all(Array.from({ length: writers + 1 }, () => MongoClient.connect(url)));
  const db = clients[0].db(database);
  const waiting = db.collection(`floor_waiting_${writers}`);
  const chain = db.collection(`floor_chain_${writers}`);
  try {
    await waiting.createIndexes([{ key: { tenantId: 1, order: 1 } }, { key: { storedAt: 1 } }]);
    for (const key of [{ tenantId: 1, seq: 1 }, { tenantId: 1, eventType: 1, seq: -1 }, { tenantId: 1, policyModule: 1, policyFunction: 1, seq: -1 }, { tenantId: 1, occurredAt: 1 }, { tenantId: 1, id: 1 }]) {
      await chain.createIndexes([{ key, ...(key.seq === 1 && Object.keys(key).length === 2 ? { unique: true } : {}) }]);
    }
    const started = performance.now();
    const share = Math.ceil(total / writers);
    const storing = Promise.all(
      clients.slice(1).map(async (client, w) => {
        const collection = client.db(database).collection(waiting.collectionName);
        for (let from = w * share; from < Math.min(total, (w + 1) * share); from += batchSize) {
          const docs = [];
          for (let i = from; i < Math.min(total, (w + 1) * share, from + batchSize); i += 1) {
            const e = event(i);
            const id = timeOrderedUuid();
            const storedAt = new Date().toISOString();
            const content = { id, ...e, occurredAt: storedAt };
            docs.push({ _id: `floor:${id}`, tenantId: 'floor', storedAt, order: new ObjectId(), record: JSON.stringify(content), contentHash: createHash('sha256').update(JSON.stringify(content)).digest('hex') });
          }
          await collection.insertMany(docs, { ordered: false });
        }
      }),
    );
    let head = { seq: 0, hash: GENESIS };
    let size = batchSize;
    while (head.seq < total) {
      const page = await waiting.find({ tenantId: 'floor' }).limit(size).toArray();
      if (page.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      page.sort((a, b) => Buffer.compare(a.order.id, b.order.id));
      const records = page.map((w) => {
        const content = JSON.parse(w.record);
        const seq = head.seq + 1;
        const hash = createHash('sha256').update(`${w.record.slice(0, -1)},"previousHash":"${head.hash}","seq":${seq}}`).digest('hex');
        const doc = { _id: `floor:${seq}`, tenantId: 'floor', seq, ...content, previousHash: head.hash, hash };
        head = { seq, hash };
        return doc;
      });
      await chain.insertMany(records, { ordered: true });
      await waiting.deleteMany({ _id: { $in: page.map((w) => w._id) } });
      size = page.length === size ? Math.min(size * 2, 8 * batchSize) : batchSize;
    }
    await storing;
    return (performance.now() - started) / 1000;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

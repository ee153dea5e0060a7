// The audit record from raw parts: the record's content as JSON (keys written in canonical order,
// so JSON.stringify is its canonical JSON), SHA-256 with node:crypto, chained onto the head and
// inserted with better-sqlite3 into a table of the chain's schema. Records of concurrent requests
// are gathered until the next turn of the event loop and inserted in one transaction; each
// append resolves only once its transaction committed.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { CHAIN_SCHEMA, GENESIS } from '../support/chain-schema.mjs';
import { timeOrderedUuid } from '../support/time-ordered-uuid.mjs';


/** A writer of one tenant's chain into a new SQLite file at `path` (WAL, synchronous=NORMAL, as the service's store). */
export function openAuditWriter(path, tenantId) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(CHAIN_SCHEMA);
  const insert = db.prepare('INSERT INTO audit_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  let seq = 0;
  let head = GENESIS;
  let pending = [];

  const writeAll = db.transaction((events) => {
    for (const { event } of events) {
      seq += 1;
      const id = timeOrderedUuid();
      const occurredAt = new Date().toISOString();
      const payload = JSON.stringify(event.payload);
      const content = JSON.stringify({
        actorId: event.actorId,
        eventType: event.eventType,
        id,
        occurredAt,
        payload: event.payload,
        policyFunction: event.policyFunction,
        policyModule: event.policyModule,
        previousHash: head,
        seq,
      });
      const hash = createHash('sha256').update(content).digest('hex');
      insert.run(tenantId, seq, id, event.eventType, event.policyModule, event.policyFunction, event.actorId, occurredAt, payload, hash, head);
      head = hash;
    }
  });

  /** Set when a transaction failed: the head in memory may be ahead of the file, so nothing more is chained. */
  let failure = null;

  function flush() {
    const events = pending;
    pending = [];
    try {
      if (failure === null) writeAll.immediate(events);
    } catch (error) {
      failure = error;
    }
    for (const { resolve, reject } of events) (failure === null ? resolve() : reject(failure));
  }

  return {
    /** Resolves once the event's record is committed. */
    append(event) {
      return new Promise((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ event, resolve, reject });
      });
    },
    count: () => db.prepare('SELECT count(*) AS n FROM audit_records').get().n,
    close: () => db.close(),
  };
}

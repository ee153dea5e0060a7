import { randomUUID } from 'node:crypto';

/**
 * A new record id: a UUID of version 7 (RFC 9562), its first 48 bits the time in milliseconds and
 * the other 74 randomUUID's random bits. Ids made in time order are inserted at the end of the
 * chain's (tenant, id) index, so a transaction of a hundred records dirties a page or two of it;
 * random ids dirtied a page each, which SQLite then wrote, checksummed and later checkpointed (the
 * largest part of storing a record: bench/README.md, "Time-ordered record ids"). Made from
 * randomUUID because the `uuid` package's v7 costs 5 µs a call against 0.1 here.
 */
export function newAuditRecordId(nowMs: number = Date.now()): string {
  const random = randomUUID();
  const time = nowMs.toString(16).padStart(12, '0');
  // random is xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: what follows its version digit is kept.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoBulkWriteError, MongoClient, type MongoServerSelectionError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { isStoreUnreachable } from '../store-unreachable.js';

describe('isStoreUnreachable', () => {
  it('recognises a MongoDB server that does not answer, also when wrapped', async () => {
    // Port 9 (discard) has no listener here: the driver gives up after its server selection timeout.
    const client = new MongoClient('mongodb://127.0.0.1:9/', { serverSelectionTimeoutMS: 200, connectTimeoutMS: 200 });
    const failure = await client.db('x').command({ ping: 1 }).then(
      () => null,
      (error: unknown) => error,
    );
    await client.close();
    expect(failure).toBeInstanceOf(Error);
    expect(isStoreUnreachable(failure)).toBe(true);
    expect(isStoreUnreachable(new Error('writing the audit record failed', { cause: failure }))).toBe(true);
    // An insertMany cut off by a lost connection: the driver wraps the network error this way.
    expect(isStoreUnreachable(new MongoBulkWriteError(failure as MongoServerSelectionError, {} as never))).toBe(true);
  });

  it('recognises a SQLite file locked by another connection past its busy timeout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pe-unreachable-'));
    const holder = new Database(join(dir, 'db.sqlite'));
    const waiter = new Database(join(dir, 'db.sqlite'), { timeout: 0 });
    try {
      holder.exec('CREATE TABLE t (x INTEGER)');
      holder.exec('BEGIN EXCLUSIVE');
      let failure: unknown = null;
      try {
        waiter.exec('INSERT INTO t VALUES (1)');
      } catch (error) {
        failure = error;
      }
      expect(isStoreUnreachable(failure)).toBe(true);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      waiter.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('recognises a connection pool that no connection came back to in time, and SQLite\'s extended busy codes', () => {
    const waitQueue = Object.assign(new Error('Timed out while checking out a connection from connection pool'), { name: 'MongoWaitQueueTimeoutError' });
    expect(isStoreUnreachable(waitQueue)).toBe(true);
    for (const code of ['SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED_SHAREDCACHE']) {
      expect(isStoreUnreachable(Object.assign(new Error(code), { code })), code).toBe(true);
    }
  });

  it('leaves every other failure alone: those stay 500s with a reference', () => {
    expect(isStoreUnreachable(new Error('boom'))).toBe(false);
    expect(isStoreUnreachable(Object.assign(new Error('dup'), { code: 11000 }))).toBe(false);
    expect(isStoreUnreachable(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }))).toBe(false);
    expect(isStoreUnreachable('a string')).toBe(false);
    expect(isStoreUnreachable(undefined)).toBe(false);
  });
});

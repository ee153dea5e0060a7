import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChain } from '../../../../test/support/audit-records.js';
import { linkChain } from '../../../../test/support/link-chain.js';
import { countingLoopTurns } from '../../../../test/support/loop-turns.js';
import { openSqliteStore, type SqliteStore } from '../../index.js';

/** Records one second apart from 2026-01-01T00:00:01Z (seq 1), so a window's seqs are known. */
const RECORDS = 60_000;
const at = (seq: number) => new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();

describe('SQLite audit list over a full time window far below the head', () => {
  let store: SqliteStore;

  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
    for (let written = 0; written < RECORDS; written += 5_000) {
      await linkChain(store, 'acme', buildChain(await store.audit.head('acme'), 5_000));
    }
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  /** The list's answer, and how many turns the event loop took while it was read. */
  async function listCountingTurns(query: Parameters<SqliteStore['audit']['list']>[1]) {
    const { value: records, turns } = await countingLoopTurns(() => store.audit.list('acme', query));
    return { seqs: records.map((record) => record.seq), turns };
  }

  it('steps over the newer records a stretch at a time, the event loop free in between, with the answer one query gives', async () => {
    // 1,000 records at the start of the chain: every newer one is stepped over to find them.
    const window = { from: at(1), to: at(1_000) };
    const newest = await listCountingTurns({ limit: 10, ...window });
    expect(newest.seqs).toEqual(Array.from({ length: 10 }, (_, i) => 1_000 - i));
    expect(newest.turns).toBeGreaterThan(1);
    // Below `before`, and across the end of a stretch.
    const paged = await listCountingTurns({ limit: 10, before: 995, ...window });
    expect(paged.seqs).toEqual(Array.from({ length: 10 }, (_, i) => 994 - i));
    expect((await listCountingTurns({ limit: 3, before: 3, ...window })).seqs).toEqual([2, 1]);
    // A window holding nothing below `before` ends at the start of the chain.
    expect((await listCountingTurns({ limit: 10, before: 59_000, from: at(59_500), to: at(RECORDS) })).seqs).toEqual([]);
  });
});

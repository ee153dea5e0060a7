import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildRecords } from '../../../test/support/audit-records.js';
import { linkChain } from '../../../test/support/link-chain.js';
import { inProcessStoredPageReads } from '../../../test/support/stored-page-reads.js';
import { DependencyUnavailableError } from '../../errors/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AuditRecord, ChainPageSource } from '../audit-chain-store.js';
import { canonicalAuditContent, hashAuditContent } from '../audit-hash.js';
import { CHAIN_START, checkChainPage, type ChainPosition, type PageCheck } from '../chain-page-check.js';
import { canonicalJson, createChainVerifier, verifyChain } from '../index.js';
import { walkStoredChain } from '../stored-chain-walk.js';
import { walkChain } from '../verify-chain.js';

const LENGTH = 20;
const PAGE_SIZES = [1, 3, 7, 20, 500];

/** Payloads of the shapes a chain holds: nested, escaped, unicode, numbers, names like array indexes. */
const PAYLOADS: Array<Record<string, unknown>> = [
  { result: true, context: { applicant: { age: 31, income: 42_000.5 } } },
  { message: 'line one\nline "two"\t\\ end', control: '\u0001' },
  { name: 'Zoë 😀 \u2028', list: [1, -2, 0.1, 1e21, 1e-7, null, false, 'x'] },
  { '10': 'ten', '9': 'nine', a: { '2': [], '1': {} } },
  {},
];

describe('walkStoredChain, the API\'s walk over pages read where they are checked', () => {
  let dir: string;
  let store: SqliteStore;
  let source: ChainPageSource;
  const reads = inProcessStoredPageReads();
  let tenants = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pe-stored-walk-'));
    store = await openSqliteStore(join(dir, 'chain.db'));
    // Tampering needs the append-only triggers out of the way.
    store.raw.exec('DROP TRIGGER audit_records_no_update; DROP TRIGGER audit_records_no_delete;');
    source = store.audit.pageSource()!;
  });
  afterAll(async () => {
    reads.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function chain(): Promise<{ tenantId: string; records: AuditRecord[] }> {
    const tenantId = `t${(tenants += 1)}`;
    const records = buildRecords(null, Array.from({ length: LENGTH }, (_, i) => ({ payload: PAYLOADS[i % PAYLOADS.length]!, policyModule: i % 4 === 3 ? null : 'com.acme' })));
    await linkChain(store, tenantId, records);
    return { tenantId, records };
  }
  const set = (tenantId: string, seq: number, column: string, value: unknown) =>
    store.raw.prepare(`UPDATE audit_records SET ${column} = ? WHERE tenant_id = ? AND seq = ?`).run(value, tenantId, seq);
  const remove = (tenantId: string, from: number, to = from) =>
    store.raw.prepare('DELETE FROM audit_records WHERE tenant_id = ? AND seq BETWEEN ? AND ?').run(tenantId, from, to);

  /**
   * The walk from each starting point and in pages of each size, through the stored pages and
   * through `scan` and checkChainPage (the offline verifier's walk): the same answer and the same
   * progress reported page by page. Returns the answer from the start of the chain.
   */
  async function sameAsOffline(tenantId: string, records: readonly AuditRecord[]): Promise<PageCheck> {
    const starts: ChainPosition[] = [CHAIN_START, { seq: 4, hash: records[3]!.hash }];
    for (const from of starts) {
      for (const pageSize of PAGE_SIZES) {
        const offlinePages: ChainPosition[] = [];
        const storedPages: ChainPosition[] = [];
        const offline = await walkChain(store.audit, tenantId, from, { pageSize, check: checkChainPage, onPage: (reached) => offlinePages.push(reached) });
        const stored = await walkStoredChain(source, tenantId, from, { pageSize, reads, onPage: (reached) => storedPages.push(reached) });
        expect({ walk: stored, pages: storedPages }, `from seq ${from.seq}, pages of ${pageSize}`).toEqual({ walk: offline, pages: offlinePages });
      }
    }
    return walkChain(store.audit, tenantId, CHAIN_START, { pageSize: 500, check: checkChainPage });
  }

  it('ends only once every page it handed out has answered, so it leaves nothing running on the threads', async () => {
    const { tenantId, records } = await chain();
    let running = 0;
    const slowReads = {
      threads: 2,
      readAndCheck: async (task: Parameters<typeof reads.readAndCheck>[0]) => {
        running += 1;
        try {
          const page = await reads.readAndCheck(task);
          // Pages past the end of the chain answer last.
          if (page.read === 0) await new Promise((resolve) => setTimeout(resolve, 20));
          return page;
        } finally {
          running -= 1;
        }
      },
    };
    const walked = await walkStoredChain(source, tenantId, CHAIN_START, { pageSize: 5, reads: slowReads });
    expect(walked).toEqual({ reached: { seq: LENGTH, hash: records[LENGTH - 1]!.hash }, problem: null });
    expect(running).toBe(0);
  });

  it('walks an intact chain to its last record', async () => {
    const { tenantId, records } = await chain();
    expect(await sameAsOffline(tenantId, records)).toEqual({ reached: { seq: LENGTH, hash: records[LENGTH - 1]!.hash }, problem: null });
  });

  it('finds a payload stored in another member order or with whitespace intact (the same JSON value)', async () => {
    const { tenantId, records } = await chain();
    set(tenantId, 3, 'payload', '{"list":[1,-2,0.1,1e+21,1e-7,null,false,"x"],"name":"Zoë 😀 \u2028"}');
    set(tenantId, 6, 'payload', JSON.stringify(PAYLOADS[0], null, 2));
    set(tenantId, 7, 'payload', '{"message":"line one\\nline \\"two\\"\\t\\\\ end","control":"\\u0001"}');
    set(tenantId, 9, 'payload', '{"10":"ten","9":"nine","a":{"2":[],"1":{}}}');
    // A name given twice: JSON keeps the last, which is the record's value.
    set(tenantId, 11, 'payload', '{"context":{"applicant":{"age":31,"income":42000.5}},"result":false,"result":true}');
    expect((await sameAsOffline(tenantId, records)).problem).toBeNull();
  });

  it('refuses a non-canonical payload whose hash was forged over the text as stored', async () => {
    const { tenantId, records } = await chain();
    const record = records[7]!;
    const canonical = canonicalAuditContent(record);
    const spaced = JSON.stringify(record.payload, null, 1);
    const stored = canonical.replace(`"payload":${canonicalJson(record.payload)}`, `"payload":${spaced}`);
    expect(stored).not.toBe(canonical);
    set(tenantId, 8, 'payload', spaced);
    set(tenantId, 8, 'hash', hashAuditContent(stored));
    expect((await sameAsOffline(tenantId, records)).problem).toEqual({ seq: 8, reason: 'hash does not match the record content' });
  });

  it.each([
    ['a changed payload value', 5, 'payload', '{"result":false,"context":{"applicant":{"age":31,"income":42000.5}}}', 'hash does not match the record content'],
    ['a changed hash', 12, 'hash', 'f'.repeat(64), 'hash does not match the record content'],
    ['a changed previousHash', 9, 'previous_hash', 'e'.repeat(64), 'previousHash does not match the hash of seq 8'],
    ['a changed first previousHash', 1, 'previous_hash', 'e'.repeat(64), 'previousHash does not match the genesis hash'],
    ['an actor stored as bytes', 2, 'actor_id', Buffer.from('intruder'), 'record content cannot be hashed: `$.actorId` must be a plain object, array or JSON scalar'],
    ['a lone surrogate escaped in the payload', 10, 'payload', '{"a":"\\ud800"}', 'record content cannot be hashed: `$.payload.a` contains a lone surrogate'],
    ['a payload that is not JSON', 8, 'payload', '{"result":', /^record is unreadable: payload is not JSON/],
    ['a payload that is an array', 15, 'payload', '[]', 'record is unreadable: payload is not a JSON object'],
    ['a module removed', 2, 'policy_module', null, 'hash does not match the record content'],
  ])('reports %s at its seq', async (_name, seq, column, value, reason) => {
    const { tenantId, records } = await chain();
    set(tenantId, seq, column, value);
    const walked = await sameAsOffline(tenantId, records);
    expect(walked.reached.seq).toBe(seq - 1);
    expect(walked.problem?.seq).toBe(seq);
    expect(walked.problem?.reason).toMatch(reason);
  });

  it.each([
    [1, 1],
    [7, 7],
    [8, 8],
    [8, 15],
    [LENGTH - 1, LENGTH - 1],
  ])('reports records %i to %i removed as the first of them missing', async (from, to) => {
    const { tenantId, records } = await chain();
    remove(tenantId, from, to);
    expect((await sameAsOffline(tenantId, records)).problem).toEqual({ seq: from, reason: `seq ${from} is missing (the next stored record is seq ${to + 1})` });
  });

  it('reports an unreadable record after a missing one as unreadable, as a read of the store meets it first', async () => {
    const { tenantId, records } = await chain();
    remove(tenantId, 6);
    set(tenantId, 7, 'payload', 'not json');
    expect((await sameAsOffline(tenantId, records)).problem).toMatchObject({ seq: 7, reason: expect.stringMatching(/^record is unreadable/) });
  });

  it('reports a seq stored as text, and a record past the end of the chain, as seqs missing', async () => {
    const { tenantId, records } = await chain();
    set(tenantId, 11, 'seq', 'eleven');
    expect((await sameAsOffline(tenantId, records)).problem).toEqual({ seq: 11, reason: 'seq 11 is missing (the next stored record is seq 12)' });
    const other = await chain();
    const [beyond] = buildRecords({ seq: LENGTH + 4, hash: other.records[LENGTH - 1]!.hash }, [{}]);
    store.raw
      .prepare('INSERT INTO audit_records (tenant_id, seq, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(other.tenantId, beyond!.seq, beyond!.id, beyond!.eventType, beyond!.policyModule, beyond!.policyFunction, beyond!.actorId, beyond!.occurredAt, JSON.stringify(beyond!.payload), beyond!.hash, beyond!.previousHash);
    expect((await sameAsOffline(other.tenantId, other.records)).problem).toEqual({ seq: LENGTH + 1, reason: `seq ${LENGTH + 1} is missing (the next stored record is seq ${LENGTH + 5})` });
  });
});

describe('createChainVerifier with stored pages', () => {
  let dir: string;
  let store: SqliteStore;
  let memory: SqliteStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pe-stored-verifier-'));
    store = await openSqliteStore(join(dir, 'chain.db'));
    memory = await openSqliteStore(':memory:');
  });
  afterAll(async () => {
    await store?.close();
    await memory?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let reads: ReturnType<typeof inProcessStoredPageReads>;
  afterEach(() => reads?.close());

  it('reads pages where they are checked when the store names a source, and hands them over otherwise', async () => {
    reads = inProcessStoredPageReads();
    await linkChain(store, 'acme', buildRecords(null, Array.from({ length: 45 }, () => ({}))));
    await linkChain(memory, 'acme', buildRecords(null, Array.from({ length: 45 }, () => ({}))));
    let handedOver = 0;
    const options = {
      check: (records: AuditRecord[], from: ChainPosition) => {
        handedOver += records.length;
        return checkChainPage(records, from);
      },
      storedPages: reads,
      concurrency: 1,
      fullIntervalMs: 3_600_000,
      pageSize: 10,
    };
    const onFile = await createChainVerifier({ ...options, records: store.audit }).verify('acme');
    expect(onFile).toEqual(await verifyChain(store.audit, 'acme'));
    expect(onFile).toMatchObject({ valid: true, checked: 45 });
    expect(handedOver).toBe(0);
    // An in-memory database has no file a thread could open.
    expect(memory.audit.pageSource()).toBeNull();
    expect(await createChainVerifier({ ...options, records: memory.audit }).verify('acme')).toMatchObject({ valid: true, checked: 45 });
    expect(handedOver).toBe(45);
  });

  it('once closed, ends a walk at its next page', async () => {
    reads = inProcessStoredPageReads(1);
    await linkChain(store, 'globex', buildRecords(null, Array.from({ length: 60 }, () => ({}))));
    let pages = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const verifier = createChainVerifier({
      records: store.audit,
      check: () => {
        throw new Error('pages are read where they are checked');
      },
      storedPages: {
        threads: 1,
        readAndCheck: async (task) => {
          pages += 1;
          if (pages === 1) await held;
          return reads.readAndCheck(task);
        },
      },
      concurrency: 1,
      fullIntervalMs: 3_600_000,
      pageSize: 10,
    });
    const walking = verifier.verify('globex');
    await expect.poll(() => pages).toBe(1);
    verifier.close();
    release();
    await expect(walking).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(pages).toBe(1);
  });
});

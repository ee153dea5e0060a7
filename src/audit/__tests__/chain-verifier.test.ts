import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRecords } from '../../../test/support/audit-records.js';
import { linkChain } from '../../../test/support/link-chain.js';
import { DependencyUnavailableError } from '../../errors/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AuditRecord } from '../audit-chain-store.js';
import { checkChainPage, type ChainPosition } from '../chain-page-check.js';
import { createChainVerifier, verifyChain, type ChainVerifier, type ChainVerifierOptions } from '../index.js';

const HOUR = 3_600_000;

describe('createChainVerifier', () => {
  let store: SqliteStore;
  /** Records each walk hashed, by tenant, in the order the pages were checked. */
  let hashed: Array<{ tenantId: string; records: number }>;
  let clock: number;

  /** Records whose actor is their tenant, so a checker can tell whose page it hashes. */
  const append = async (tenantId: string, count: number): Promise<AuditRecord[]> => {
    const records = buildRecords(await store.audit.head(tenantId), Array.from({ length: count }, () => ({ actorId: tenantId })));
    await linkChain(store, tenantId, records);
    return records;
  };
  const set = (tenantId: string, seq: number, column: string, value: string) =>
    store.raw.prepare(`UPDATE audit_records SET ${column} = ? WHERE tenant_id = ? AND seq = ?`).run(value, tenantId, seq);
  const remove = (tenantId: string, fromSeq: number) => store.raw.prepare('DELETE FROM audit_records WHERE tenant_id = ? AND seq >= ?').run(tenantId, fromSeq);
  /** Records written into the table past the linker, as whoever tampers with the store would. */
  const forge = (tenantId: string, records: readonly AuditRecord[]) => {
    const insert = store.raw.prepare(
      'INSERT INTO audit_records (tenant_id, seq, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, hash, previous_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const r of records) {
      insert.run(tenantId, r.seq, r.id, r.eventType, r.policyModule, r.policyFunction, r.actorId, r.occurredAt, JSON.stringify(r.payload), r.hash, r.previousHash);
    }
  };
  const hashedFor = (tenantId: string) => hashed.filter((page) => page.tenantId === tenantId).reduce((sum, page) => sum + page.records, 0);

  /** The verifier on the store, with a checker that counts what it hashes. */
  function verifier(overrides: Partial<ChainVerifierOptions> = {}): ChainVerifier {
    return createChainVerifier({
      records: store.audit,
      check: async (records: AuditRecord[], from: ChainPosition) => {
        hashed.push({ tenantId: records[0]?.actorId ?? '', records: records.length });
        return checkChainPage(records, from);
      },
      concurrency: 2,
      fullIntervalMs: HOUR,
      pageSize: 10,
      now: () => clock,
      ...overrides,
    });
  }

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    // Tampering needs the append-only triggers out of the way.
    store.raw.exec('DROP TRIGGER audit_records_no_update; DROP TRIGGER audit_records_no_delete;');
    hashed = [];
    clock = Date.UTC(2026, 0, 1);
  });
  afterEach(async () => {
    await store.close();
  });

  it('answers as the offline verifier does, and hashes each record once across verifications', async () => {
    await append('acme', 25);
    const verify = verifier();
    const first = await verify.verify('acme');
    expect(first).toEqual(await verifyChain(store.audit, 'acme'));
    expect(first).toMatchObject({ valid: true, checked: 25, headSeq: 25 });
    expect(hashedFor('acme')).toBe(25);

    // An unchanged head answers from the verified prefix.
    expect(await verify.verify('acme')).toEqual(first);
    expect(hashedFor('acme')).toBe(25);

    // Appended records are the only ones read and hashed.
    const more = await append('acme', 7);
    expect(await verify.verify('acme')).toEqual({ valid: true, checked: 32, headSeq: 32, headHash: more[6]!.hash, firstInvalidSeq: null, reason: null });
    expect(hashedFor('acme')).toBe(32);
  });

  it('shares one walk among concurrent calls of a tenant', async () => {
    await append('acme', 25);
    const verify = verifier();
    const answers = await Promise.all(Array.from({ length: 8 }, () => verify.verify('acme')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(hashedFor('acme')).toBe(25);
  });

  it('walks the whole chain again when asked, and then when the last whole walk is older than the interval', async () => {
    await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    await verify.verify('acme', { full: true });
    expect(hashedFor('acme')).toBe(50);
    clock += HOUR - 1;
    await verify.verify('acme');
    expect(hashedFor('acme')).toBe(50);
    clock += 1;
    await verify.verify('acme');
    expect(hashedFor('acme')).toBe(75);
  });

  it('finds an old record edited after a verification on the next whole walk, and keeps reporting it', async () => {
    await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    set('acme', 7, 'payload', '{"n":700}');
    // The kept prefix covers seq 7: what a verification without a whole walk cannot see.
    expect(await verify.verify('acme')).toMatchObject({ valid: true, checked: 25 });
    const broken = { valid: false, checked: 6, headSeq: 25, firstInvalidSeq: 7, reason: 'hash does not match the record content' };
    expect(await verify.verify('acme', { full: true })).toMatchObject(broken);
    // The prefix now ends before the edit, so every later verification finds it.
    expect(await verify.verify('acme')).toMatchObject(broken);
    await append('acme', 3);
    expect(await verify.verify('acme')).toMatchObject({ valid: false, firstInvalidSeq: 7 });
  });

  it('finds an old record edited after a verification once the interval has passed', async () => {
    await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    set('acme', 3, 'actor_id', 'intruder');
    clock += HOUR;
    expect(await verify.verify('acme')).toMatchObject({ valid: false, checked: 2, firstInvalidSeq: 3 });
  });

  it('finds an edit of the newest verified record at once', async () => {
    await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    set('acme', 25, 'payload', '{"n":2500}');
    expect(await verify.verify('acme')).toMatchObject({ valid: false, checked: 24, firstInvalidSeq: 25, reason: 'hash does not match the record content' });
  });

  it('reports records removed from the end of a verified chain as missing, every time', async () => {
    const records = await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    remove('acme', 21);
    const truncated = {
      valid: false,
      checked: 20,
      headSeq: 20,
      headHash: records[19]!.hash,
      firstInvalidSeq: 21,
      reason: 'seq 21 is missing: the chain reached seq 25 when it was verified before',
    };
    expect(await verify.verify('acme')).toEqual(truncated);
    expect(await verify.verify('acme')).toEqual(truncated);
    // The offline verifier, which keeps nothing, sees a shorter valid chain.
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({ valid: true, checked: 20 });
  });

  it('reports a chain rewritten consistently from an old record at the verified record', async () => {
    const records = await append('acme', 25);
    const verify = verifier();
    await verify.verify('acme');
    // Records 10… replaced by other, correctly linked and hashed ones.
    remove('acme', 10);
    forge('acme', buildRecords({ seq: 9, hash: records[8]!.hash }, Array.from({ length: 16 }, () => ({ actorId: 'forger' }))));
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({ valid: true, checked: 25 });
    const rewritten = {
      valid: false,
      checked: 24,
      firstInvalidSeq: 25,
      reason: 'the hash of seq 25 is not the one verified before: the chain was rewritten at or before it',
    };
    expect(await verify.verify('acme')).toMatchObject(rewritten);
    expect(await verify.verify('acme', { full: true })).toMatchObject(rewritten);
  });

  it('gives walks their turns in arrival order, one per tenant at a time, so a tenant asking again goes behind the others', async () => {
    await append('acme', 30);
    await append('globex', 5);
    await append('initech', 5);
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const verify = createChainVerifier({
      records: store.audit,
      check: async (records, from) => {
        order.push(`${records[0]!.actorId}:${records[0]!.seq}`);
        if (order.length === 1) await held;
        return checkChainPage(records, from);
      },
      concurrency: 1,
      fullIntervalMs: HOUR,
      pageSize: 10,
      now: () => clock,
    });
    const acme = verify.verify('acme');
    await expect.poll(() => order.length).toBe(1);
    // While acme's walk holds the only turn: acme asks for a whole walk again, then two others ask.
    const acmeAgain = verify.verify('acme', { full: true });
    const globex = verify.verify('globex');
    const initech = verify.verify('initech');
    release();
    await Promise.all([acme, acmeAgain, globex, initech]);
    expect(order).toEqual(['acme:1', 'acme:11', 'acme:21', 'globex:1', 'initech:1', 'acme:1', 'acme:11', 'acme:21']);
  });

  it('answers an unchanged head without waiting for a turn', async () => {
    await append('acme', 5);
    await append('globex', 5);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const verify = createChainVerifier({
      records: store.audit,
      check: async (records, from) => {
        if (holding) await held;
        return checkChainPage(records, from);
      },
      concurrency: 1,
      fullIntervalMs: HOUR,
      now: () => clock,
    });
    const cached = await verify.verify('globex');
    holding = true;
    const acme = verify.verify('acme');
    expect(await verify.verify('globex')).toEqual(cached);
    release();
    expect(await acme).toMatchObject({ valid: true, checked: 5 });
  });

  it('once closed, stops its walks at their next page and refuses verifications: a stopping process waits for no walk', async () => {
    await append('acme', 30);
    await append('globex', 5);
    let pages = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const verify = createChainVerifier({
      records: store.audit,
      check: async (records, from) => {
        pages += 1;
        if (pages === 1) await held;
        return checkChainPage(records, from);
      },
      concurrency: 1,
      fullIntervalMs: HOUR,
      pageSize: 10,
      now: () => clock,
    });
    const walking = verify.verify('acme');
    // globex waits for the only turn.
    const waiting = verify.verify('globex');
    await expect.poll(() => pages).toBe(1);
    verify.close();
    release();
    await expect(walking).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(waiting).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(pages).toBe(1);
    await expect(verify.verify('acme')).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('rejects every caller of a walk whose store read fails, and walks again on the next call', async () => {
    await append('acme', 25);
    let failing = true;
    const records = {
      head: store.audit.head.bind(store.audit),
      scan: (tenantId: string, fromSeq: number, pageSize: number) => {
        if (failing) throw new Error('store unavailable');
        return store.audit.scan(tenantId, fromSeq, pageSize);
      },
      pageSource: () => null,
    };
    const verify = verifier({ records });
    const calls = [verify.verify('acme'), verify.verify('acme')];
    for (const call of calls) await expect(call).rejects.toThrow('store unavailable');
    failing = false;
    expect(await verify.verify('acme')).toMatchObject({ valid: true, checked: 25 });
  });
});

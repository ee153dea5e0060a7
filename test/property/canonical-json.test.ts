// The service's RFC 8785 canonical JSON is byte-identical to the `canonicalize` package on generated
// JSON: nested objects and arrays, any unicode (astral characters, controls, escapes), member names
// whose order tells UTF-16 code units from code points, numbers at the edges of the ECMAScript form.
// Lone surrogates, in strings or in member names, are refused by both. Audit chains hashed with
// either verify with `npm run audit:verify`.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_VALID, runAuditVerifyCli } from '../../scripts/audit-verify.js';
import {
  canonicalAuditContent,
  canonicalJson,
  createAuditTrail,
  GENESIS_PREVIOUS_HASH,
  type AuditReceipt,
  type AuditRecord,
  type StoredAuditRecord,
} from '../../src/audit/index.js';
import { storedAuditContent } from '../../src/audit/audit-hash.js';
import { recordTextAround } from '../../src/audit/record-text.js';
import { NoCanonicalFormError } from '../../src/audit/canonical-json.js';
import { isCanonicalObjectText } from '../../src/audit/canonical-json-text.js';
import { CHAIN_START, checkChainPage, type ChainPosition } from '../../src/audit/chain-page-check.js';
import { walkStoredChain } from '../../src/audit/stored-chain-walk.js';
import { walkChain } from '../../src/audit/verify-chain.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { openSqliteStore, type SqliteStore, type Store } from '../../src/store/index.js';
import { linkChain } from '../support/link-chain.js';
import { inProcessStoredPageReads } from '../support/stored-page-reads.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1_000);
const CHAIN_RUNS = Number(process.env.PROPERTY_RUNS ?? 20);

/**
 * Names whose canonical order is easy to get wrong: UTF-16 code units put U+1F600 (D83D DE00) and
 * U+10000 before U+E000 and U+FFFF, where code points put them after; case, accents and
 * decomposed forms; controls and characters JSON escapes; names an object enumerates first
 * (array indexes, in numeric order) or treats specially (`__proto__`, `toJSON`).
 */
const NAMES = [
  '', 'a', 'A', 'b', 'B', 'aa', 'ab', 'a\u0000', '\u0000', '\u001f', '\u007f', ' ', '"', '\\', '/', '\\u0000', '\\ud800',
  'é', 'e\u0301', 'ß', 'ss', 'İ', 'ﬀ', '€', '\u2028', '\u2029', '\ud7ff', '\ue000', '\uffff', '\ufeff', '\u{1F600}', '\u{10000}', '\u{10FFFF}', '😀a', '\uffffa',
  '0', '1', '9', '10', '00', '01', '-1', '1.5', '1e3', '4294967294', '4294967295', '4294967296', '9007199254740993',
  '__proto__', 'constructor', 'prototype', 'toJSON', 'toString', 'valueOf', 'hasOwnProperty',
];

/** Numbers whose shortest round-trip form changes notation, rounds, or sits at a limit of doubles. */
const EDGE_NUMBERS = [
  0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 1 / 3, -1 / 3, 4.35, 0.5, 1.5, 100, 1e3,
  5e-324, -5e-324, Number.MIN_VALUE, 2 ** -1022, 2.2250738585072014e-308, Number.EPSILON, Number.MAX_VALUE, -Number.MAX_VALUE, 1.7976931348623157e308,
  Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Number.MAX_SAFE_INTEGER + 2, 2 ** 53 + 4, 2 ** 63, 2 ** 64, -(2 ** 63),
  1e20, 1e21, -1e21, 1.0000000000000001e21, 999999999999999900000, 123456789012345680000, 295147905179352830000, 1e22, 1e23, 1.5e300,
  1e-6, 1e-7, -1e-7, 1.5e-7, 0.000001, 0.0000001, 9.999999999999997e-7, 9.999999999999998e-8, 1e-323, 333333333.3333332, 1424953923781206.2,
];

/** Strings with every kind of character, well formed (no lone surrogates). */
const text = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('\u{1F600}', '\uffff', '\ue000', '\\', '"', '\u0000', '\n', '\u2028', 'a'), maxLength: 8 }),
);
const name = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: text });
const number = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 1e20, max: 1e22, noNaN: true }),
  fc.double({ min: 1e-8, max: 1e-5, noNaN: true }),
  fc.maxSafeInteger(),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));

/** Objects come with their members in any order, some without a prototype (fast-check's default). */
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(name, tie('value'), { maxKeys: 8 }),
})).value;
const payload = fc.dictionary(name, json, { maxKeys: 8 });

/** Text with one surrogate that has no partner: alone, next to a pair, or a pair in the wrong order. */
const loneSurrogateText = fc.oneof(
  fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', 'x\ud83d', '\ude00x', '\ude00\ud83d', '😀\ud83d', '\ude00😀', '\ud83d\ud83d\ude00'),
  fc
    .tuple(fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 5 }), fc.constant('😀')), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ unit: 'grapheme-ascii', maxLength: 5 }))
    .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`),
);

type Step = { index: number; siblings: unknown[] } | { name: string; siblings: Record<string, unknown> };

/** Where the lone surrogate is put: a path of array positions and members among well-formed siblings. */
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(fc.array(json, { maxLength: 3 }), fc.nat()).map(([siblings, at]) => ({ index: at % (siblings.length + 1), siblings })),
  fc.tuple(name, fc.dictionary(name, json, { maxKeys: 3 })).map(([key, siblings]) => ({ name: key, siblings })),
);

/** A value holding one lone surrogate, in a string or in a member name, and where canonicalJson must say it is. */
const poisoned = fc
  .tuple(loneSurrogateText, fc.boolean(), json, fc.array(step, { maxLength: 4 }))
  .map(([lone, inName, inner, steps]) => {
    let value: unknown = inName ? { [lone]: inner } : lone;
    let at = '';
    for (const s of steps) {
      if ('index' in s) {
        const list = [...s.siblings];
        list.splice(s.index, 0, value);
        value = list;
        at = `[${s.index}]${at}`;
      } else {
        const object = { ...s.siblings };
        Object.defineProperty(object, s.name, { value, enumerable: true, writable: true, configurable: true });
        value = object;
        at = `.${s.name}${at}`;
      }
    }
    return { value, at: `$${at}`, problem: inName ? 'has a key that contains a lone surrogate' : 'contains a lone surrogate' };
  });

describe('canonicalJson against the canonicalize package', () => {
  it('writes the same text for any JSON value, built in any member order or parsed from text', () => {
    fc.assert(
      fc.property(json, (value) => {
        const expected = canonicalize(value);
        expect(canonicalJson(value)).toBe(expected);
        // As a body arrives and as a store gives a record back.
        expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(expected);
        // The canonical text parsed and written again is itself (what the audit writer stores).
        expect(canonicalJson(JSON.parse(expected!))).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('writes the same numbers at the edges of the ECMAScript form, alone and as members', () => {
    for (const value of EDGE_NUMBERS) {
      expect(canonicalJson(value), String(value)).toBe(canonicalize(value));
      expect(canonicalJson({ n: [value, -value] })).toBe(canonicalize({ n: [value, -value] }));
    }
    expect(canonicalJson(EDGE_NUMBERS)).toBe(
      '[0,0,1,-1,0.1,0.2,0.30000000000000004,0.3333333333333333,-0.3333333333333333,4.35,0.5,1.5,100,1000,' +
        '5e-324,-5e-324,5e-324,2.2250738585072014e-308,2.2250738585072014e-308,2.220446049250313e-16,1.7976931348623157e+308,-1.7976931348623157e+308,1.7976931348623157e+308,' +
        '9007199254740991,-9007199254740991,9007199254740992,9007199254740992,9007199254740996,9223372036854776000,18446744073709552000,-9223372036854776000,' +
        '100000000000000000000,1e+21,-1e+21,1.0000000000000001e+21,999999999999999900000,123456789012345680000,295147905179352830000,1e+22,1e+23,1.5e+300,' +
        '0.000001,1e-7,-1e-7,1.5e-7,0.000001,1e-7,9.999999999999997e-7,9.999999999999998e-8,1e-323,333333333.3333332,1424953923781206.2]',
    );
  });

  it('orders members by UTF-16 code units, array-index names included', () => {
    const value = { '\uffff': 1, '\u{1F600}': 2, '\ue000': 3, '\u{10000}': 4, b: 5, a: 6, '10': 7, '9': 8, '-1': 9, '': 10 };
    const expected = '{"":10,"-1":9,"10":7,"9":8,"a":6,"b":5,"\u{10000}":4,"\u{1F600}":2,"\ue000":3,"\uffff":1}';
    expect(canonicalize(value)).toBe(expected);
    expect(canonicalJson(value)).toBe(expected);
  });

  it('refuses a lone surrogate, in a string or a member name, at any depth, saying where it is', () => {
    fc.assert(
      fc.property(poisoned, ({ value, at, problem }) => {
        expect(() => canonicalize(value)).toThrow(/lone surrogate/i);
        let refusal: unknown;
        try {
          canonicalJson(value);
        } catch (error) {
          refusal = error;
        }
        expect(refusal).toBeInstanceOf(NoCanonicalFormError);
        expect(refusal).toBeInstanceOf(TypeError);
        expect(refusal).toMatchObject({ at, problem });
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses numbers that have no JSON form, as canonicalize does', () => {
    for (const value of [Number.NaN, Infinity, -Infinity]) {
      expect(() => canonicalize({ a: [value] })).toThrow();
      expect(() => canonicalJson({ a: [value] })).toThrow(expect.objectContaining({ at: '$.a[0]', problem: 'must be a finite number' }));
    }
  });
});

/** Whether every member name, at any depth, is written between its quotes as it is (no escape). */
function namesVerbatim(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(namesVerbatim);
  return Object.entries(value).every(([key, item]) => JSON.stringify(key) === `"${key}"` && namesVerbatim(item));
}

/** Characters that make a near miss of a canonical text: structure, number parts, escapes, spaces, surrogate halves. */
const MISS_CHARACTERS = ['{', '}', '[', ']', ':', ',', '"', '\\', ' ', '\n', '0', '1', '9', '-', '+', '.', 'e', 'E', 'u', 'n', 'l', 'a', 'F', '\u0000', '\u001f', '\ud800', '\udc00', '😀'];
const nearMiss = fc
  .tuple(payload, fc.nat(), fc.constantFrom(...MISS_CHARACTERS), fc.constantFrom('insert', 'remove', 'replace'))
  .map(([value, at, character, edit]) => {
    const text = canonicalJson(value);
    const i = at % (text.length + 1);
    if (edit === 'insert') return text.slice(0, i) + character + text.slice(i);
    if (edit === 'remove') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + character + text.slice(i + 1);
  });

/** A `true` from isCanonicalObjectText must mean canonicalJson writes the text back for what JSON.parse reads from it. */
function expectProvedOnlyIfCanonical(text: string): void {
  if (!isCanonicalObjectText(text)) return;
  const value: unknown = JSON.parse(text);
  expect(value !== null && typeof value === 'object' && !Array.isArray(value), text).toBe(true);
  expect(canonicalJson(value)).toBe(text);
}

describe('isCanonicalObjectText against canonicalJson', () => {
  it('proves a text canonical only when canonicalJson writes it back, and proves every canonical text whose names need no escape', () => {
    fc.assert(
      fc.property(payload, nearMiss, (value, missed) => {
        const canonical = canonicalJson(value);
        for (const text of [canonical, JSON.stringify(value), JSON.stringify(value, null, 1), missed]) expectProvedOnlyIfCanonical(text);
        if (namesVerbatim(value)) expect(isCanonicalObjectText(canonical), canonical).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('takes numbers only in the form JSON.stringify writes', () => {
    for (const value of EDGE_NUMBERS) {
      const text = `{"n":${JSON.stringify(value)}}`;
      expect(isCanonicalObjectText(text), text).toBe(true);
    }
    for (const number of ['-0', '00', '01', '1.50', '1.0', '1e21', '1E+21', '1e+021', '.5', '1.', '-', '1e400', '12345678901234567', '0.10', '+1']) {
      expect(isCanonicalObjectText(`{"n":${number}}`), number).toBe(false);
    }
  });

  it('takes escapes only as JSON.stringify writes them, and refuses lone surrogates, whitespace, repeated or unordered names', () => {
    for (const text of ['{"a":"\\n\\"\\\\\\u0000\\u001f\\b"}', '{"":1,"a":[],"b":{}}', '{"a":"😀"}', '{"__proto__":1}']) {
      expect(isCanonicalObjectText(text), text).toBe(true);
      expect(canonicalJson(JSON.parse(text))).toBe(text);
    }
    const refused = [
      '{"a":"\\u000A"}', '{"a":"\\u000a"}', '{"a":"\\/"}', '{"a":"\\u0041"}', '{"a":"\\ud800"}', '{"a":"\ud800"}', '{"a":"\udc00\ud800"}',
      '{"a":1,"a":1}', '{"b":1,"a":2}', '{"a": 1}', ' {"a":1}', '{"a":1} ', '[]', '"a"', '{"a":1}{}', '{"a\\u0062":1}', '{"a":"\u0001"}',
      `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`,
    ];
    for (const text of refused) expect(isCanonicalObjectText(text), text).toBe(false);
  });
});

/** A stored field: mostly text, sometimes what a store edited by hand may hold instead. */
const storedField = fc.oneof({ weight: 6, arbitrary: text }, fc.constant(null), fc.integer(), fc.constant(Buffer.from('ab')), loneSurrogateText);

describe('storedAuditContent against canonicalAuditContent', () => {
  it('writes, when it writes at all, the canonical content of the record the stored one reads as', () => {
    const stored = fc.record({
      id: storedField,
      seq: fc.oneof(fc.integer(), fc.double(), fc.constant('7')),
      eventType: storedField,
      policyModule: storedField,
      policyFunction: storedField,
      actorId: storedField,
      occurredAt: storedField,
      payload: fc.oneof(payload.map((value) => canonicalJson(value)), payload.map((value) => JSON.stringify(value)), nearMiss),
      hash: fc.constant('0'.repeat(64)),
      previousHash: storedField,
    });
    fc.assert(
      fc.property(stored, (record) => {
        const fast = storedAuditContent(record as unknown as StoredAuditRecord);
        if (fast === undefined) return;
        const read = { ...record, payload: JSON.parse(record.payload) as Record<string, unknown> } as unknown as AuditRecord;
        expect(fast).toBe(canonicalAuditContent(read));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('recordTextAround against canonicalJson', () => {
  it('writes, when it writes at all, the canonical JSON of the fields around the payload it is given the text of', () => {
    // Mostly text, as a record's fields are, so that most records are written; sometimes what a record may not hold.
    const field = fc.oneof({ weight: 20, arbitrary: text }, storedField);
    const fields = fc.record({ id: field, eventType: field, policyModule: field, policyFunction: field, actorId: field, occurredAt: field });
    const chain = fc.option(fc.record({ previousHash: field, seq: fc.oneof({ weight: 10, arbitrary: fc.integer() }, fc.double(), fc.constant('7')) }), { nil: undefined });
    let written = 0;
    fc.assert(
      fc.property(fields, payload, chain, (record, value, place) => {
        const text = recordTextAround(record, canonicalJson(value), place);
        if (text === undefined) return;
        written += 1;
        expect(text).toBe(canonicalJson({ ...record, payload: value, ...place }));
      }),
      { numRuns: RUNS },
    );
    // Most generated fields are text: the comparison above ran, it was not skipped.
    expect(written).toBeGreaterThan(RUNS / 2);
  });
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The fields of a record's content hash (the receipt's), as the interface specifies them. */
const contentFields = (record: AuditRecord) => ({
  id: record.id,
  eventType: record.eventType,
  policyModule: record.policyModule,
  policyFunction: record.policyFunction,
  actorId: record.actorId,
  occurredAt: record.occurredAt,
  payload: record.payload,
});

/** The hashed fields of a record: its content and its place in the chain. */
const hashedFields = (record: AuditRecord) => ({ ...contentFields(record), seq: record.seq, previousHash: record.previousHash });

/** A chain of the payloads as the linker would write it, hashed by the reference canonicalize. */
function chainOf(tenantId: string, payloads: readonly Record<string, unknown>[], policyModule: (i: number) => string | null): AuditRecord[] {
  let previousHash = GENESIS_PREVIOUS_HASH;
  return payloads.map((p, i): AuditRecord => {
    const content = {
      id: `rec-${tenantId}-${i}`,
      seq: i + 1,
      eventType: 'POLICY_EVALUATED',
      policyModule: policyModule(i),
      policyFunction: i % 2 === 0 ? null : 'decide',
      actorId: 'svc',
      occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      payload: p,
      previousHash,
    };
    previousHash = sha256(canonicalize(content)!);
    return { ...content, hash: previousHash };
  });
}

describe('audit chains over the generated payloads', () => {
  let dataDir: string;
  let store: Store;
  let tenants = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pe-canonical-'));
    store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function verifiedByTheScript(tenantId: string, records: number): Promise<void> {
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { env: { DATA_DIR: dataDir }, out: (line: string) => lines.push(line), err: (line: string) => errors.push(line) };
    expect(await runAuditVerifyCli(['--tenant', tenantId], io)).toBe(EXIT_VALID);
    expect(lines.at(-1)).toMatch(new RegExp(`^tenant \`${tenantId}\`: chain valid, ${records} records`));
    expect(errors).toEqual([]);
  }

  it('the trail hashes what canonicalize would, in the receipt and in the chain, and the chain verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 1, maxLength: 12 }), async (payloads) => {
        const tenantId = `written-${(tenants += 1)}`;
        const trail = createAuditTrail(store.auditLinks, { recorder: { batchSize: 5 }, linker: { batchSize: 5 } });
        let receipts: AuditReceipt[];
        try {
          receipts = await Promise.all(payloads.map((p) => trail.recorder.append(tenantId, { eventType: 'POLICY_EVALUATED', actorId: 'svc', payload: p })));
          await trail.flush();
        } finally {
          await trail.close();
        }
        const receiptHash = new Map(receipts.map((r) => [r.id, r.contentHash]));
        let linked = 0;
        for await (const record of store.audit.scan(tenantId, 1, 100)) {
          expect(record.hash).toBe(sha256(canonicalize(hashedFields(record))!));
          expect(receiptHash.get(record.id)).toBe(sha256(canonicalize(contentFields(record))!));
          linked += 1;
        }
        expect(linked).toBe(payloads.length);
        await verifiedByTheScript(tenantId, payloads.length);
      }),
      { numRuns: CHAIN_RUNS },
    );
  });

  it('a chain hashed with canonicalize, payload members in the order given, verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 1, maxLength: 12 }), async (payloads) => {
        const tenantId = `referenced-${(tenants += 1)}`;
        const records = chainOf(tenantId, payloads, (i) => (i % 2 === 0 ? null : 'com.acme'));
        await linkChain(store, tenantId, records);
        await verifiedByTheScript(tenantId, records.length);
      }),
      { numRuns: CHAIN_RUNS },
    );
  });
});

/** One edit of a stored chain behind the store's back, at the `at`-th record (modulo the length). */
const edit = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom(
    'payload-reordered', 'payload-spaced', 'payload-near-miss', 'payload-unreadable', 'hash', 'previous-hash', 'delete', 'delete-run', 'seq-text', 'seq-beyond', 'actor-bytes', 'module-null', 'none',
  ),
  miss: nearMiss,
  unreadable: fc.constantFrom('{', 'null', '[]', '"x"', '{"a":1}x', ''),
});

describe('a chain read and checked where it is stored (the API\'s threads)', () => {
  let dataDir: string;
  let store: SqliteStore;
  const reads = inProcessStoredPageReads();
  let tenants = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pe-canonical-stored-'));
    store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    store.raw.exec('DROP TRIGGER audit_records_no_update; DROP TRIGGER audit_records_no_delete;');
  });
  afterAll(async () => {
    reads.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function applyEdit(tenantId: string, records: readonly AuditRecord[], change: { at: number; kind: string; miss: string; unreadable: string }): void {
    const record = records[change.at % records.length]!;
    const update = (column: string, value: unknown) =>
      store.raw.prepare(`UPDATE audit_records SET ${column} = ? WHERE tenant_id = ? AND seq = ?`).run(value, tenantId, record.seq);
    const reversed = Object.fromEntries(Object.entries(record.payload).reverse());
    switch (change.kind) {
      case 'payload-reordered':
        return void update('payload', JSON.stringify(reversed));
      case 'payload-spaced':
        return void update('payload', JSON.stringify(record.payload, null, 1));
      case 'payload-near-miss':
        return void update('payload', change.miss);
      case 'payload-unreadable':
        return void update('payload', change.unreadable);
      case 'hash':
        return void update('hash', sha256(record.hash));
      case 'previous-hash':
        return void update('previous_hash', sha256(record.previousHash));
      case 'delete':
      case 'delete-run':
        return void store.raw.prepare('DELETE FROM audit_records WHERE tenant_id = ? AND seq BETWEEN ? AND ?').run(tenantId, record.seq, record.seq + (change.kind === 'delete' ? 0 : 4));
      case 'seq-text':
        return void update('seq', `s${record.seq}`);
      case 'seq-beyond':
        return void update('seq', record.seq + 1_000);
      case 'actor-bytes':
        return void update('actor_id', Buffer.from(record.actorId));
      case 'module-null':
        return void update('policy_module', null);
    }
  }

  it('gives the offline walk\'s answer, page by page, after any one edit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 1, maxLength: 12 }), edit, fc.constantFrom(1, 2, 3, 5, 500), async (payloads, change, pageSize) => {
        const tenantId = `stored-${(tenants += 1)}`;
        const records = chainOf(tenantId, payloads, () => 'com.acme');
        await linkChain(store, tenantId, records);
        applyEdit(tenantId, records, change);
        const offlinePages: ChainPosition[] = [];
        const storedPages: ChainPosition[] = [];
        const offline = await walkChain(store.audit, tenantId, CHAIN_START, { pageSize, check: checkChainPage, onPage: (reached) => offlinePages.push(reached) });
        const stored = await walkStoredChain(store.audit.pageSource()!, tenantId, CHAIN_START, { pageSize, reads, onPage: (reached) => storedPages.push(reached) });
        expect({ walk: stored, pages: storedPages }).toEqual({ walk: offline, pages: offlinePages });
      }),
      { numRuns: RUNS / 4 },
    );
  });
});

// Receipts through the client, against a fake fetch: read from every kind of answer, and checked
// against the record with hashes computed here independently (the `canonicalize` package, SHA-256).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { createPolicyClient, DEFAULT_LINK_POLLING, PolicyHttpError, PolicyProtocolError, type PolicyClientOptions } from '../src/index.js';

interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
}

const sha256 = (value: unknown) => createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');

const CONTENT = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  eventType: 'SOURCE_EVALUATED',
  policyModule: 'acme.pricing',
  policyFunction: 'price',
  actorId: 'signed:acme',
  occurredAt: '2026-03-01T10:00:00.123Z',
  payload: { sourceHash: 'ab'.repeat(32), functionName: 'price', locale: 'en-US', success: true, executionTimeMs: 0.05, note: 'ünïcode ✓ 价格' },
};
const RECEIPT = { id: CONTENT.id, contentHash: sha256(CONTENT) };
const PREVIOUS_HASH = 'cd'.repeat(32);
const SEQ = 7;
const HASH = sha256({ ...CONTENT, seq: SEQ, previousHash: PREVIOUS_HASH });
const OTHER_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const OTHER_HASH = 'ef'.repeat(32);

const linkedRecord = (overrides: Record<string, unknown> = {}) => ({
  ...CONTENT,
  seq: SEQ,
  hash: HASH,
  previousHash: PREVIOUS_HASH,
  linked: true,
  contentHash: RECEIPT.contentHash,
  ...overrides,
});
const unlinkedRecord = () => ({ ...CONTENT, seq: null, hash: null, previousHash: null, linked: false, contentHash: RECEIPT.contentHash });
const verification = (overrides: Record<string, unknown> = {}) => ({
  valid: true,
  checked: 3,
  headSeq: SEQ + 2,
  headHash: OTHER_HASH,
  firstInvalidSeq: null,
  reason: null,
  unlinked: 0,
  oldestUnlinkedAgeMs: null,
  ...overrides,
});

/** A client whose fetch answers from `script` in order and whose sleep only records the wait. */
function makeClient(script: Scripted[], overrides: Partial<PolicyClientOptions> = {}) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({ method: init!.method!, url: String(input), headers: init!.headers as Record<string, string> });
    const next = script.shift() ?? { status: 599, body: { error: 'fake fetch script exhausted' } };
    const text = next.body === undefined ? '' : JSON.stringify(next.body);
    return new Response(text, { status: next.status, headers: { 'content-type': 'application/json', ...next.headers } });
  };
  const client = createPolicyClient({
    baseUrl: 'http://service.test',
    tenantId: 'acme',
    role: 'ADMIN',
    bearerToken: 'admin-token',
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // Jitter in the middle: each wait is three quarters of its backoff step.
    random: () => 0.5,
    retries: 0,
    ...overrides,
  });
  return { client, sent, sleeps };
}

const EVALUATE = { source: 'Module acme.pricing. …', functionName: 'price', context: { amount: 21 } };
const ANSWER = { result: 42, error: null, executionTimeMs: 0.05, diagnostics: [] };
const receiptHeaders = { 'x-audit-record-id': RECEIPT.id, 'x-audit-content-hash': RECEIPT.contentHash };

describe('policy client: receipts on answers', () => {
  it('reads a single answer\'s receipt from its headers, a failed evaluation\'s included', async () => {
    const failed = { result: null, error: 'PL3004 coverage out of range', code: 'PL3004', executionTimeMs: 0.1 };
    const { client } = makeClient([
      { status: 200, body: ANSWER, headers: receiptHeaders },
      { status: 200, body: failed, headers: { 'x-audit-record-id': OTHER_ID, 'x-audit-content-hash': OTHER_HASH } },
      { status: 200, body: ANSWER },
    ]);
    expect(await client.evaluateSource(EVALUATE)).toEqual({ ok: true, result: 42, executionTimeMs: 0.05, receipt: RECEIPT, raw: ANSWER, status: 200, attempts: 1 });
    expect(await client.evaluateSource(EVALUATE)).toMatchObject({ ok: false, code: 'PL3004', receipt: { id: OTHER_ID, contentHash: OTHER_HASH } });
    // An answer that names no record has no receipt.
    expect((await client.evaluateSource(EVALUATE)).receipt).toBeNull();
  });

  it.each([
    ['half a receipt', { 'x-audit-record-id': RECEIPT.id }],
    ['an id that is no record id', { 'x-audit-record-id': RECEIPT.id.toUpperCase(), 'x-audit-content-hash': RECEIPT.contentHash }],
    ['a content hash that is no SHA-256', { 'x-audit-record-id': RECEIPT.id, 'x-audit-content-hash': 'abc' }],
  ])('refuses a single answer with %s as a protocol error', async (_label, headers) => {
    const { client } = makeClient([{ status: 200, body: ANSWER, headers }]);
    await expect(client.evaluateSource(EVALUATE)).rejects.toThrow(PolicyProtocolError);
  });

  it('gives each batch item its own receipt, and none to an item refused before evaluation', async () => {
    const refused = { result: null, error: 'item 1: `functionName` is required', code: 'ERR_EVALUATION_ITEM_INVALID', executionTimeMs: 0, auditRecordId: null, auditContentHash: null };
    const { client } = makeClient([
      {
        status: 200,
        body: {
          results: [
            { ...ANSWER, auditRecordId: RECEIPT.id, auditContentHash: RECEIPT.contentHash },
            refused,
            { ...ANSWER, result: 2, auditRecordId: OTHER_ID, auditContentHash: OTHER_HASH },
          ],
        },
      },
    ]);
    const outcome = await client.evaluateBatch([EVALUATE, EVALUATE, EVALUATE]);
    expect(outcome.results.map((r) => r.receipt)).toEqual([RECEIPT, null, { id: OTHER_ID, contentHash: OTHER_HASH }]);
  });

  it('refuses a batch item carrying half a receipt', async () => {
    const { client } = makeClient([{ status: 200, body: { results: [{ ...ANSWER, auditRecordId: RECEIPT.id, auditContentHash: null }] } }]);
    await expect(client.evaluateBatch([EVALUATE])).rejects.toThrow(/auditRecordId and auditContentHash must name a record id/);
  });

  it('keeps a GraphQL answer\'s extensions and reads its receipts by response key, failed decisions included', async () => {
    const extensions = {
      auditReceipts: {
        loan: { auditRecordId: RECEIPT.id, auditContentHash: RECEIPT.contentHash },
        failed: { auditRecordId: OTHER_ID, auditContentHash: OTHER_HASH },
      },
      cost: 12,
    };
    const { client } = makeClient([
      { status: 200, body: { data: { loan: { eligible: true }, failed: null }, errors: [{ message: 'PL3004', path: ['failed'] }], extensions } },
      { status: 200, body: { data: { listPolicies: [] } } },
    ]);
    const outcome = await client.graphql('{ loan: evaluateLoanEligibility { eligible } failed: processClaim { approved } }');
    expect(outcome).toMatchObject({ ok: false, extensions, receipts: { loan: RECEIPT, failed: { id: OTHER_ID, contentHash: OTHER_HASH } } });
    expect(await client.graphql('{ listPolicies { id } }')).toMatchObject({ ok: true, extensions: null, receipts: {} });
  });

  it('refuses GraphQL receipts of the wrong shape', async () => {
    const { client } = makeClient([
      { status: 200, body: { data: { loan: null }, extensions: { auditReceipts: [] } } },
      { status: 200, body: { data: { loan: null }, extensions: { auditReceipts: { loan: { auditRecordId: 'r-1', auditContentHash: OTHER_HASH } } } } },
    ]);
    await expect(client.graphql('{ loan }')).rejects.toThrow('extensions.auditReceipts is not an object');
    await expect(client.graphql('{ loan }')).rejects.toThrow(PolicyProtocolError);
  });
});

describe('policy client: checking a receipt', () => {
  it('finds a linked record matching the receipt in one read, by the receipt\'s id with the bearer token', async () => {
    const { client, sent, sleeps } = makeClient([{ status: 200, body: linkedRecord() }]);
    const check = await client.checkReceipt(RECEIPT);
    expect(check).toEqual({ status: 'linked', receipt: RECEIPT, reads: 1, record: linkedRecord(), seq: SEQ, hash: HASH, previousHash: PREVIOUS_HASH, verifiedHeadSeq: null });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'GET', url: `http://service.test/api/v1/audit/records/${RECEIPT.id}` });
    expect(sent[0]!.headers).toMatchObject({ authorization: 'Bearer admin-token', 'X-Tenant-Id': 'acme' });
    expect(sleeps).toEqual([]);
  });

  it('reports a record not linked yet after one read unless asked to wait', async () => {
    const { client, sent, sleeps } = makeClient([{ status: 200, body: unlinkedRecord() }]);
    expect(await client.checkReceipt(RECEIPT)).toEqual({ status: 'unlinked', receipt: RECEIPT, reads: 1, record: unlinkedRecord() });
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('polls until the record is linked, the waits doubling through the client\'s sleep', async () => {
    const { client, sent, sleeps } = makeClient([
      { status: 200, body: unlinkedRecord() },
      { status: 200, body: unlinkedRecord() },
      { status: 200, body: unlinkedRecord() },
      { status: 200, body: linkedRecord() },
    ]);
    const check = await client.checkReceipt(RECEIPT, { untilLinked: true });
    expect(check).toMatchObject({ status: 'linked', reads: 4, seq: SEQ, hash: HASH });
    expect(sent).toHaveLength(4);
    expect(sleeps).toEqual([75, 150, 300]);
  });

  it('stops after the reads allowed, with the waits capped, and reports the record still unlinked', async () => {
    const { client, sent, sleeps } = makeClient(Array.from({ length: 5 }, () => ({ status: 200, body: unlinkedRecord() })));
    const check = await client.checkReceipt(RECEIPT, { untilLinked: { reads: 4, delayMs: 100, maxDelayMs: 150 } });
    expect(check).toEqual({ status: 'unlinked', receipt: RECEIPT, reads: 4, record: unlinkedRecord() });
    expect(sent).toHaveLength(4);
    expect(sleeps).toEqual([75, 113, 113]);
  });

  it('bounds the default wait: a record that never links is reported after DEFAULT_LINK_POLLING.reads reads', async () => {
    const { client, sent, sleeps } = makeClient(Array.from({ length: 20 }, () => ({ status: 200, body: unlinkedRecord() })));
    expect(await client.checkReceipt(RECEIPT, { untilLinked: true })).toMatchObject({ status: 'unlinked', reads: DEFAULT_LINK_POLLING.reads });
    expect(sent).toHaveLength(DEFAULT_LINK_POLLING.reads);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(DEFAULT_LINK_POLLING.maxDelayMs);
  });

  it('refutes a record whose content differs from the receipt, even when the service vouches for it', async () => {
    // The service's own contentHash still says the receipt's hash: the client recomputes instead.
    const edited = linkedRecord({ payload: { ...CONTENT.payload, success: false } });
    const { client, sent } = makeClient([{ status: 200, body: edited }]);
    const check = await client.checkReceipt(RECEIPT, { untilLinked: true, verifyChain: true });
    expect(check).toMatchObject({ status: 'refuted', problem: 'content', reads: 1, record: edited });
    expect(check.status === 'refuted' && check.message).toMatch(/^the record does not match the receipt/);
    // Nothing more is asked once the record is refuted.
    expect(sent).toHaveLength(1);
  });

  it('refutes a record that is another one than the receipt names', async () => {
    const { client } = makeClient([{ status: 200, body: linkedRecord({ id: OTHER_ID }) }]);
    const check = await client.checkReceipt(RECEIPT);
    expect(check).toMatchObject({ status: 'refuted', problem: 'content' });
    expect(check.status === 'refuted' && check.message).toContain(`asked for ${RECEIPT.id}`);
  });

  it('refutes a record still waiting for its link whose content differs, without waiting further', async () => {
    const { client, sent, sleeps } = makeClient([{ status: 200, body: { ...unlinkedRecord(), actorId: 'someone-else' } }]);
    expect(await client.checkReceipt(RECEIPT, { untilLinked: true })).toMatchObject({ status: 'refuted', problem: 'content', reads: 1 });
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('refutes an answer whose contentHash disagrees with the content it carries', async () => {
    const { client } = makeClient([{ status: 200, body: linkedRecord({ contentHash: OTHER_HASH }) }]);
    expect(await client.checkReceipt(RECEIPT)).toMatchObject({ status: 'refuted', problem: 'content-hash' });
  });

  it('refutes a linked record whose hash is not that of its fields with seq and previousHash', async () => {
    const { client } = makeClient([
      { status: 200, body: linkedRecord({ seq: SEQ + 1 }) },
      { status: 200, body: linkedRecord({ previousHash: OTHER_HASH }) },
      { status: 200, body: linkedRecord({ hash: OTHER_HASH }) },
    ]);
    for (let i = 0; i < 3; i += 1) expect(await client.checkReceipt(RECEIPT)).toMatchObject({ status: 'refuted', problem: 'chain-hash' });
  });

  it('refutes a receipt whose record the tenant does not have, and throws for any other refusal', async () => {
    const { client } = makeClient([
      { status: 404, body: { result: null, error: 'no audit record', code: 'ERR_AUDIT_RECORD_NOT_FOUND', executionTimeMs: 0 } },
      { status: 403, body: { result: null, error: 'requires ADMIN', code: 'ERR_AUTH_ROLE_INSUFFICIENT', executionTimeMs: 0 } },
    ]);
    expect(await client.checkReceipt(RECEIPT)).toEqual({
      status: 'refuted',
      problem: 'missing',
      message: `the tenant has no audit record ${RECEIPT.id}`,
      receipt: RECEIPT,
      reads: 1,
      record: null,
    });
    const refused: unknown = await client.checkReceipt(RECEIPT).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PolicyHttpError);
    expect(refused).toMatchObject({ status: 403, code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
  });

  it('confirms a linked record within a valid verified chain, incremental or full', async () => {
    const { client, sent } = makeClient([
      { status: 200, body: linkedRecord() },
      { status: 200, body: verification() },
      { status: 200, body: linkedRecord() },
      { status: 200, body: verification({ headSeq: SEQ, headHash: HASH }) },
    ]);
    expect(await client.checkReceipt(RECEIPT, { verifyChain: true })).toMatchObject({ status: 'linked', seq: SEQ, verifiedHeadSeq: SEQ + 2 });
    expect(await client.checkReceipt(RECEIPT, { verifyChain: { full: true } })).toMatchObject({ status: 'linked', verifiedHeadSeq: SEQ });
    expect(sent.map((request) => request.url.replace('http://service.test', ''))).toEqual([
      `/api/v1/audit/records/${RECEIPT.id}`,
      '/api/v1/audit/verify',
      `/api/v1/audit/records/${RECEIPT.id}`,
      '/api/v1/audit/verify?full=true',
    ]);
  });

  it('refutes a record the verified chain does not cover', async () => {
    const { client } = makeClient([
      { status: 200, body: linkedRecord() },
      { status: 200, body: verification({ valid: false, firstInvalidSeq: 3, reason: 'hash mismatch at seq 3' }) },
      { status: 200, body: linkedRecord() },
      { status: 200, body: verification({ headSeq: SEQ - 1 }) },
      { status: 200, body: linkedRecord() },
      { status: 200, body: verification({ headSeq: SEQ, headHash: OTHER_HASH }) },
    ]);
    const invalid = await client.checkReceipt(RECEIPT, { verifyChain: true });
    expect(invalid).toMatchObject({ status: 'refuted', problem: 'chain-invalid', record: linkedRecord() });
    expect(invalid.status === 'refuted' && invalid.message).toContain('hash mismatch at seq 3');
    expect(await client.checkReceipt(RECEIPT, { verifyChain: true })).toMatchObject({ status: 'refuted', problem: 'not-covered' });
    expect(await client.checkReceipt(RECEIPT, { verifyChain: true })).toMatchObject({ status: 'refuted', problem: 'not-covered' });
  });

  it('does not verify the chain for a record still unlinked after its reads', async () => {
    const { client, sent } = makeClient([{ status: 200, body: unlinkedRecord() }]);
    expect(await client.checkReceipt(RECEIPT, { verifyChain: true })).toMatchObject({ status: 'unlinked' });
    expect(sent).toHaveLength(1);
  });

  it('refuses a malformed receipt or polling before any request', async () => {
    const { client, sent } = makeClient([]);
    await expect(client.checkReceipt({ id: RECEIPT.id.toUpperCase(), contentHash: RECEIPT.contentHash })).rejects.toThrow(TypeError);
    await expect(client.checkReceipt({ id: '../verify', contentHash: RECEIPT.contentHash })).rejects.toThrow(/receipt.id must be an audit record id/);
    await expect(client.checkReceipt({ id: RECEIPT.id, contentHash: 'xyz' })).rejects.toThrow(/receipt.contentHash must be 64 lowercase hex/);
    await expect(client.checkReceipt(null as never)).rejects.toThrow(TypeError);
    await expect(client.checkReceipt(RECEIPT, { untilLinked: { reads: 0 } })).rejects.toThrow(RangeError);
    await expect(client.checkReceipt(RECEIPT, { untilLinked: { delayMs: -1 } })).rejects.toThrow(RangeError);
    expect(sent).toEqual([]);
  });

  it.each([
    ['not an object', []],
    ['linked without a seq', linkedRecord({ seq: null })],
    ['unlinked with a hash', { ...unlinkedRecord(), hash: HASH }],
    ['without a payload', linkedRecord({ payload: 'x' })],
    ['without linked', linkedRecord({ linked: 'yes' })],
  ])('treats a record answer %s as a protocol error', async (_label, body) => {
    const { client } = makeClient([{ status: 200, body }]);
    await expect(client.checkReceipt(RECEIPT)).rejects.toThrow(PolicyProtocolError);
  });

  it('treats a verification answer without valid and headSeq as a protocol error', async () => {
    const { client } = makeClient([
      { status: 200, body: linkedRecord() },
      { status: 200, body: { ok: true } },
    ]);
    await expect(client.checkReceipt(RECEIPT, { verifyChain: true })).rejects.toThrow(/chain verification answer lacks valid/);
  });

  it('retries a 503 while reading the record, as every request of the client does', async () => {
    const { client, sleeps } = makeClient(
      [
        { status: 503, body: { error: 'store unavailable' } },
        { status: 200, body: linkedRecord() },
      ],
      { retries: 1 },
    );
    expect(await client.checkReceipt(RECEIPT)).toMatchObject({ status: 'linked', reads: 1 });
    expect(sleeps).toHaveLength(1);
  });
});

// Receipts as a client sees them, against the service as `npm start` runs it (role `all`, SQLite):
// every evaluated answer names its audit record (headers on single answers, fields per batch item,
// `extensions.auditReceipts` in GraphQL), and the client checks a receipt against the verified chain.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import canonicalize from 'canonicalize';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { createPolicyClient, type PolicyClient } from '../../clients/typescript/src/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { createTenantService } from '../../src/tenants/index.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';
import { PRICING_SOURCE, priceContext } from './evaluation-support/policies.js';

interface Receipt {
  id: string;
  contentHash: string;
}

interface FoundRecord {
  id: string;
  seq: number | null;
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  occurredAt: string;
  payload: Record<string, unknown>;
  hash: string | null;
  previousHash: string | null;
  linked: boolean;
  contentHash: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const sha256 = (value: unknown) => createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');

/** What the client recomputes itself, as the interface states the two hashes (RFC 8785 JSON, SHA-256). */
const contentHashOf = (r: FoundRecord) =>
  sha256({ id: r.id, eventType: r.eventType, policyModule: r.policyModule, policyFunction: r.policyFunction, actorId: r.actorId, occurredAt: r.occurredAt, payload: r.payload });
const chainHashOf = (r: FoundRecord) =>
  sha256({
    id: r.id,
    seq: r.seq,
    eventType: r.eventType,
    policyModule: r.policyModule,
    policyFunction: r.policyFunction,
    actorId: r.actorId,
    occurredAt: r.occurredAt,
    payload: r.payload,
    previousHash: r.previousHash,
  });

const evaluation = { source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 800, 21), locale: 'en-US' };
const loanContext = {
  application: { requestedAmount: 10000, termMonths: 24, purpose: 'CAR' },
  applicant: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
};
const LOAN = `evaluateLoanEligibility(
  application: { requestedAmount: 10000, termMonths: 24, purpose: "CAR" }
  applicant: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 }
)`;
/** A coverage outside 0–100 makes the rule fail (PL3004): a failed decision, still evaluated and recorded. */
const FAILING_CLAIM = `processClaim(
  claim: { claimId: "7", amount: 10.5, category: "PRIMARY", diagnosisCode: "X", hasDocumentation: true, daysSinceService: 1 }
  provider: { providerId: "p", inNetwork: true, qualityScore: 1 }
  patientCoverage: 150
)`;

describe('audit receipts, from the answer to the verified chain', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let baseUrl: string;
  let client: PolicyClient;
  let secret: string;
  const tenantId = `acme-${randomBytes(3).toString('hex')}`;
  const bystanderId = `bystander-${randomBytes(3).toString('hex')}`;
  /** Its stored chain is edited by one test: no other test reads it. */
  const tamperedId = `tampered-${randomBytes(3).toString('hex')}`;
  const tokens = new Map<string, string>();

  const admin = async (path: string, tenant = tenantId) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${tokens.get(tenant)}`, 'x-tenant-id': tenant } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const recordOf = async (id: string) => {
    const { status, body } = await admin(`/api/v1/audit/records/${id}`);
    expect(status, JSON.stringify(body)).toBe(200);
    return body as unknown as FoundRecord;
  };
  /** A client with the tenant's ADMIN token: what checking a receipt needs (it may evaluate too). */
  const auditorOf = (tenant: string) => createPolicyClient({ baseUrl, tenantId: tenant, role: 'ADMIN', bearerToken: tokens.get(tenant)!, retries: 0 });
  /** Generous for a loaded machine; the link normally follows within milliseconds. */
  const untilLinked = { reads: 200, delayMs: 20, maxDelayMs: 200 };
  const receiptOf = (headers: Headers): Receipt | null => {
    const id = headers.get('x-audit-record-id');
    const contentHash = headers.get('x-audit-content-hash');
    return id === null && contentHash === null ? null : { id: id!, contentHash: contentHash! };
  };
  /** Reads the record until its linker has given it a place in the chain. */
  const linkedRecord = async (id: string) => {
    for (let attempt = 0; attempt < 1000; attempt += 1) {
      const record = await recordOf(id);
      if (record.linked) return record;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`record ${id} was not linked`);
  };

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-receipts-'));
    env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0', ENGINE_THREADS: '1' };
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    secret = (await createTenantService(store.tenants).register(tenantId)).secret.secret;
    await createTenantService(store.tenants).register(bystanderId);
    await createTenantService(store.tenants).register(tamperedId);
    await store.close();
    service = runService([], env);
    baseUrl = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    await service.waitForLog('service started');
    for (const tenant of [tenantId, bystanderId, tamperedId]) {
      const lines: string[] = [];
      expect(await runTokenCli(['--tenant', tenant, '--role', 'ADMIN'], { env, out: (line) => lines.push(line), err: () => {} })).toBe(0);
      tokens.set(tenant, lines[0]!);
    }
    client = createPolicyClient({ baseUrl, tenantId, role: 'MEMBER', secret, retries: 0 });
  }, 60_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${env.REDIS_KEY_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the record of a single answer in its headers, on both single evaluation routes', async () => {
    const bySource = await client.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate-source', evaluation);
    expect(bySource.body).toMatchObject({ result: 42, error: null });
    const sourceReceipt = receiptOf(bySource.headers)!;
    expect(sourceReceipt.id).toMatch(UUID);
    expect(sourceReceipt.contentHash).toMatch(SHA256_HEX);
    expect(await recordOf(sourceReceipt.id)).toMatchObject({ eventType: 'SOURCE_EVALUATED', policyFunction: 'price', contentHash: sourceReceipt.contentHash });

    // A failed evaluation is answered (200 with `error`) and recorded like any other.
    const failed = await client.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate-source', { ...evaluation, context: priceContext(12, 800, 1) });
    expect(failed.body).toMatchObject({ result: null, code: 'PL3004' });
    const failedReceipt = receiptOf(failed.headers)!;
    expect((await recordOf(failedReceipt.id)).payload).toMatchObject({ success: false });

    const byName = await client.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate', {
      policyModule: 'lending.loan',
      policyFunction: 'evaluateLoanEligibility',
      context: loanContext,
    });
    expect(byName.body).toMatchObject({ error: null, policyModule: 'lending.loan', version: 0 });
    const storedReceipt = receiptOf(byName.headers)!;
    expect(await recordOf(storedReceipt.id)).toMatchObject({ eventType: 'POLICY_EVALUATED', policyFunction: 'evaluateLoanEligibility', contentHash: storedReceipt.contentHash });
    expect(new Set([sourceReceipt.id, failedReceipt.id, storedReceipt.id]).size).toBe(3);

    // Nothing evaluated, nothing recorded: no receipt.
    const body = JSON.stringify({ policyModule: 'no.such', policyFunction: 'f', context: {} });
    const path = '/api/v1/policies/evaluate';
    const unknown = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signRequest({ method: 'POST', pathWithQuery: path, body, tenantId, role: 'MEMBER', secret }) },
      body,
    });
    expect(unknown.status).toBe(404);
    expect(receiptOf(unknown.headers)).toBeNull();
  });

  it('gives each batch item its own receipt, and null to items refused before they were evaluated', async () => {
    const response = await client.request<{ results: Array<Record<string, unknown>> }>('POST', '/api/v1/policies/evaluate-source/batch', {
      items: [
        evaluation,
        { source: PRICING_SOURCE, context: {} },
        { policyModule: 'no.such', policyFunction: 'f', context: {} },
        { policyModule: 'lending.loan', policyFunction: 'evaluateLoanEligibility', context: loanContext },
      ],
    });
    expect(receiptOf(response.headers)).toBeNull();
    const [evaluated, malformed, unknown, stored] = response.body.results;
    expect(malformed).toMatchObject({ code: 'ERR_EVALUATION_ITEM_INVALID', auditRecordId: null, auditContentHash: null });
    expect(unknown).toMatchObject({ code: 'ERR_POLICY_NOT_FOUND', auditRecordId: null, auditContentHash: null });
    for (const [item, eventType] of [
      [evaluated!, 'SOURCE_EVALUATED'],
      [stored!, 'POLICY_EVALUATED'],
    ] as const) {
      expect(item.auditRecordId).toMatch(UUID);
      expect(item.auditContentHash).toMatch(SHA256_HEX);
      expect(await recordOf(item.auditRecordId as string)).toMatchObject({ eventType, contentHash: item.auditContentHash });
    }
    expect(evaluated!.auditRecordId).not.toBe(stored!.auditRecordId);
  });

  it('puts each GraphQL decision\'s receipt in extensions.auditReceipts under its response key, failed decisions included', async () => {
    const response = await client.request<{ data: Record<string, unknown>; errors?: Array<{ path: string[] }>; extensions?: Record<string, unknown> }>('POST', '/graphql', {
      query: `{ approved: ${LOAN} { eligible } again: ${LOAN} { eligible } failed: ${FAILING_CLAIM} { approved } listPolicies(size: 1) { id } }`,
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ approved: { eligible: true }, again: { eligible: true }, failed: null });
    expect(response.body.errors?.map((error) => error.path)).toEqual([['failed']]);
    const receipts = (response.body.extensions as { auditReceipts: Record<string, { auditRecordId: string; auditContentHash: string }> }).auditReceipts;
    expect(Object.keys(receipts).sort()).toEqual(['again', 'approved', 'failed']);
    expect(new Set(Object.values(receipts).map((receipt) => receipt.auditRecordId)).size).toBe(3);
    for (const [key, policyFunction] of [
      ['approved', 'evaluateLoanEligibility'],
      ['again', 'evaluateLoanEligibility'],
      ['failed', 'processClaim'],
    ] as const) {
      const record = await recordOf(receipts[key]!.auditRecordId);
      expect(record).toMatchObject({ eventType: 'POLICY_EVALUATED', policyFunction, contentHash: receipts[key]!.auditContentHash });
    }

    const lookupOnly = await client.request<Record<string, unknown>>('POST', '/graphql', { query: '{ listPolicies(size: 1) { id } }' });
    expect(lookupOnly.body).not.toHaveProperty('extensions');
  });

  it('lets a client check a receipt: the record, once linked, is the one answered and sits in the verified chain', async () => {
    const answered = await client.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate-source', { ...evaluation, context: priceContext(40, 650, 5) });
    expect(answered.body).toMatchObject({ result: 15 });
    const receipt = receiptOf(answered.headers)!;

    const record = await linkedRecord(receipt.id);
    // The content is what was answered: the service's hash and the client's own agree with the receipt.
    expect(record.contentHash).toBe(receipt.contentHash);
    expect(contentHashOf(record)).toBe(receipt.contentHash);
    expect(record.payload).toMatchObject({ functionName: 'price', success: true });
    // Its place in the chain: the hash covers the content, seq and previousHash.
    expect(record.seq).toEqual(expect.any(Number));
    expect(record.hash).toBe(chainHashOf(record));

    const verification = await admin('/api/v1/audit/verify?full=true');
    expect(verification.body).toMatchObject({ valid: true, firstInvalidSeq: null, unlinked: 0, oldestUnlinkedAgeMs: null });
    const headSeq = verification.body.headSeq as number;
    expect(headSeq).toBeGreaterThanOrEqual(record.seq!);

    // The listed chain from the verified head down to the record: each link names the one below it.
    const listed = (await admin('/api/v1/audit?limit=1000')).body as unknown as FoundRecord[];
    expect(listed[0]).toMatchObject({ seq: headSeq, hash: verification.body.headHash });
    const at = listed.findIndex((r) => r.id === receipt.id);
    expect(at).toBeGreaterThanOrEqual(0);
    const { linked: _linked, contentHash: _contentHash, ...asListed } = record;
    expect(listed[at]).toEqual(asListed);
    for (let i = 0; i < at; i += 1) {
      expect(listed[i]!.previousHash).toBe(listed[i + 1]!.hash);
      expect(listed[i]!.hash).toBe(chainHashOf(listed[i]!));
    }
  });

  it('checks receipts with the client: each answered evaluation is linked and inside the verified chain', async () => {
    const auditor = auditorOf(tenantId);
    const single = await client.evaluateSource<number>({ ...evaluation, context: priceContext(40, 650, 7) });
    expect(single).toMatchObject({ ok: true, result: 21, receipt: { id: expect.stringMatching(UUID), contentHash: expect.stringMatching(SHA256_HEX) } });
    const batch = await client.evaluateBatch([evaluation, { source: PRICING_SOURCE, functionName: 'prise', context: {} }]);
    expect(batch.results.map((r) => r.ok)).toEqual([true, false]);
    const graphql = await client.graphql(`{ loan: ${LOAN} { eligible } }`);
    expect(graphql).toMatchObject({ ok: true, data: { loan: { eligible: true } } });
    const receipts = [single.receipt!, ...batch.results.map((r) => r.receipt!), graphql.receipts.loan!];
    expect(new Set(receipts.map((receipt) => receipt.id)).size).toBe(4);

    const checks = [];
    for (const receipt of receipts) checks.push(await auditor.checkReceipt(receipt, { untilLinked, verifyChain: { full: true } }));
    for (const [i, check] of checks.entries()) {
      expect(check, JSON.stringify(check)).toMatchObject({ status: 'linked', receipt: receipts[i], record: { id: receipts[i]!.id, linked: true } });
      if (check.status !== 'linked') continue;
      expect(check.verifiedHeadSeq).toBeGreaterThanOrEqual(check.seq);
      // Hashed here, independently of the client, the record's fields give the same link.
      expect(check.hash).toBe(chainHashOf(check.record as FoundRecord));
    }
    const [sourceCheck, , failedCheck, loanCheck] = checks;
    expect(sourceCheck!.record).toMatchObject({ eventType: 'SOURCE_EVALUATED', policyFunction: 'price', payload: { success: true } });
    expect(failedCheck!.record).toMatchObject({ eventType: 'SOURCE_EVALUATED', policyFunction: 'prise', payload: { success: false } });
    expect(loanCheck!.record).toMatchObject({ eventType: 'POLICY_EVALUATED', policyFunction: 'evaluateLoanEligibility' });

    const seqs = checks.flatMap((check) => (check.status === 'linked' ? [check.seq] : []));
    expect(new Set(seqs).size).toBe(4);
    const verification = await admin('/api/v1/audit/verify');
    expect(verification.body).toMatchObject({ valid: true });
    expect(verification.body.headSeq as number).toBeGreaterThanOrEqual(Math.max(...seqs));
  });

  it('reports a record whose payload was edited in the store as not matching its receipt', async () => {
    const auditor = auditorOf(tamperedId);
    const answered = await auditor.evaluateSource({ ...evaluation, context: priceContext(40, 650, 9) });
    const receipt = answered.receipt!;
    const before = await auditor.checkReceipt(receipt, { untilLinked, verifyChain: true });
    expect(before).toMatchObject({ status: 'linked', record: { payload: { success: true } } });

    // Someone with the file edits the linked record, past the trigger that guards the chain.
    const db = new Database(join(dataDir, SQLITE_FILE_NAME));
    try {
      db.pragma('busy_timeout = 10000');
      const guard = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'audit_records_no_update'`).pluck().get() as string;
      db.transaction(() => {
        db.exec('DROP TRIGGER audit_records_no_update');
        const edit = db.prepare(`UPDATE audit_records SET payload = json_set(payload, '$.success', json('false')) WHERE tenant_id = ? AND id = ?`).run(tamperedId, receipt.id);
        expect(edit.changes).toBe(1);
        db.exec(guard);
      })();
    } finally {
      db.close();
    }

    const after = await auditor.checkReceipt(receipt, { untilLinked, verifyChain: true });
    expect(after).toMatchObject({ status: 'refuted', problem: 'content', receipt, reads: 1, record: { id: receipt.id, linked: true, payload: { success: false } } });
    expect(after.status === 'refuted' && after.message).toMatch(/^the record does not match the receipt/);
    // The service's full walk finds the same edit.
    expect((await admin('/api/v1/audit/verify?full=true', tamperedId)).body).toMatchObject({ valid: false });
  });

  it('answers 404 for another tenant\'s record and 400 for an id that cannot be one, in the envelope', async () => {
    const answered = await client.request('POST', '/api/v1/policies/evaluate-source', evaluation);
    const { id } = receiptOf(answered.headers)!;
    expect((await admin(`/api/v1/audit/records/${id}`)).status).toBe(200);

    const bystander = await admin(`/api/v1/audit/records/${id}`, bystanderId);
    expect(bystander).toMatchObject({ status: 404, body: { result: null, code: 'ERR_AUDIT_RECORD_NOT_FOUND', executionTimeMs: 0 } });
    const malformed = await admin(`/api/v1/audit/records/${id.toUpperCase()}x`);
    expect(malformed).toMatchObject({ status: 400, body: { result: null, code: 'ERR_REQUEST_PATH_INVALID', executionTimeMs: 0 } });
  });
});

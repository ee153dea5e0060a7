// GET /api/v1/audit/records/{id} and the unlinked counts of GET /api/v1/audit/verify over HTTP, with
// records stored by the recorder and linked (or not yet) by a linker the suite drives itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  computeAuditContentHash,
  createAuditLinker,
  createAuditRecorder,
  type AuditEvent,
  type AuditLinker,
  type AuditReceipt,
  type AuditRecorder,
} from '../../src/audit/index.js';
import type { SqliteStore } from '../../src/store/index.js';
import { envelope, startHarness, type Harness } from './http-support/http-harness.js';

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

const FIELDS = ['id', 'seq', 'eventType', 'policyModule', 'policyFunction', 'actorId', 'occurredAt', 'payload', 'hash', 'previousHash', 'linked', 'contentHash'];
const event = (n: number): AuditEvent => ({
  eventType: 'POLICY_EVALUATED',
  policyModule: 'com.acme.lending',
  policyFunction: 'eligible',
  actorId: `user-${n}`,
  occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  payload: { n, note: 'ünïcode ✓' },
});

describe('audit records by id over HTTP', () => {
  let h: Harness;
  let recorder: AuditRecorder;
  let linker: AuditLinker;
  /** Linked into acme's chain. */
  let linked: AuditReceipt[];
  /** Stored for acme and never linked (the suite's linker is not told of it). */
  let waiting: AuditReceipt;

  const record = async (id: string, tenant = 'acme') => h.get(`/api/v1/audit/records/${id}`, { tenant });

  beforeAll(async () => {
    h = await startHarness();
    recorder = createAuditRecorder(h.store.auditLinks);
    linker = createAuditLinker(h.store.auditLinks, { holder: 'suite' });
    linked = await Promise.all([1, 2, 3].map((n) => recorder.append('acme', event(n))));
    linker.notify('acme');
    await linker.settled();
    waiting = await recorder.append('acme', event(4));
  });
  afterAll(async () => {
    await recorder.close();
    await linker.stop();
    await h.close();
  });

  it('answers a linked record as the lists show it, with linked and the content hash of its receipt', async () => {
    const response = await record(linked[1]!.id);
    expect(response.status).toBe(200);
    const found = (await response.json()) as FoundRecord;
    expect(Object.keys(found).sort()).toEqual([...FIELDS].sort());
    const listed = ((await (await h.get('/api/v1/audit')).json()) as Array<Record<string, unknown>>).find((r) => r.id === linked[1]!.id);
    const { linked: isLinked, contentHash, ...asListed } = found;
    expect(asListed).toEqual(listed);
    expect(isLinked).toBe(true);
    expect(found.seq).toBe(2);
    expect(contentHash).toBe(linked[1]!.contentHash);
    expect(found.payload).toEqual(event(2).payload);
  });

  it('answers a record stored but not yet linked with seq, hash and previousHash null', async () => {
    const response = await record(waiting.id);
    expect(response.status).toBe(200);
    const found = (await response.json()) as FoundRecord;
    expect(found).toEqual({
      id: waiting.id,
      seq: null,
      ...event(4),
      hash: null,
      previousHash: null,
      linked: false,
      contentHash: waiting.contentHash,
    });
  });

  it('computes the content hash from the record as read, so an edit of the stored content shows', async () => {
    const edited = await recorder.append('edited', event(5));
    // Someone with direct access to the file changes the payload of a record waiting for its link.
    (h.store as SqliteStore).raw.prepare(`UPDATE audit_unlinked SET payload = '{"n":6}' WHERE tenant_id = 'edited' AND id = ?`).run(edited.id);
    const found = (await (await record(edited.id, 'edited')).json()) as FoundRecord;
    expect(found.payload).toEqual({ n: 6 });
    expect(found.contentHash).not.toBe(edited.contentHash);
    expect(found.contentHash).toBe(computeAuditContentHash(edited.id, { ...event(5), payload: { n: 6 } }));
  });

  it('counts the unlinked records in the verification, and none once they are linked', async () => {
    const before = (await (await h.get('/api/v1/audit/verify')).json()) as Record<string, unknown>;
    expect(before).toMatchObject({ valid: true, headSeq: 3, headHash: expect.any(String), unlinked: 1 });
    expect(before.oldestUnlinkedAgeMs).toEqual(expect.any(Number));
    expect(before.oldestUnlinkedAgeMs as number).toBeGreaterThanOrEqual(0);

    const other = await recorder.append('counted', event(7));
    linker.notify('counted');
    await linker.settled();
    expect((await (await record(other.id, 'counted')).json()) as FoundRecord).toMatchObject({ linked: true, seq: 1 });
    expect(await (await h.get('/api/v1/audit/verify', { tenant: 'counted' })).json()).toMatchObject({
      valid: true,
      checked: 1,
      headSeq: 1,
      unlinked: 0,
      oldestUnlinkedAgeMs: null,
    });
  });

  it('404 in the envelope for an id the tenant does not have, another tenant\'s included', async () => {
    for (const [id, tenant] of [
      [linked[0]!.id, 'bystander'],
      [waiting.id, 'bystander'],
      [randomUUID(), 'acme'],
    ] as const) {
      const response = await record(id, tenant);
      expect(response.status, `${tenant} ${id}`).toBe(404);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUDIT_RECORD_NOT_FOUND');
      expect(body.error).toContain(id);
    }
  });

  it.each([
    ['not a UUID', 'record-1'],
    ['upper case', '0F8FAD5B-D9CB-469F-A165-70867728950E'],
    ['too long', `${randomUUID()}${'0'.repeat(300)}`],
    ['a UUID with a character more', `${randomUUID()}0`],
    ['an encoded slash', `${randomUUID().slice(0, 35)}%2F`],
    ['non-ASCII text', encodeURIComponent('0f8fad5b-d9cb-469f-a165-70867728950é')],
  ])('400 in the envelope for an id that cannot be one: %s', async (_label, id) => {
    const response = await record(id);
    expect(response.status).toBe(400);
    const body = await envelope(response);
    expect(body.code).toBe('ERR_REQUEST_PATH_INVALID');
    expect(body.error).toContain('`id`');
  });

  it('requires ADMIN, and spends one rate-limit point', async () => {
    const refused = await h.get(`/api/v1/audit/records/${linked[0]!.id}`, { role: 'MEMBER' });
    expect(refused.status).toBe(403);
    expect((await envelope(refused)).code).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
    const remaining = async () => {
      const response = await record(linked[0]!.id);
      expect(response.status).toBe(200);
      return Number(/;r=(\d+);/.exec(response.headers.get('RateLimit') ?? '')?.[1]);
    };
    const first = await remaining();
    expect(first - (await remaining())).toBe(1);
  });
});

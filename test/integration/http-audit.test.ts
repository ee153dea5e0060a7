import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../../src/api/audit-event-types.js';
import { createAuditTrail, type AuditReceipt, type AuditRecord } from '../../src/audit/index.js';
import type { SqliteStore } from '../../src/store/index.js';
import { envelope, startHarness, type Harness } from './http-support/http-harness.js';

const BASE = Date.UTC(2026, 0, 1, 0, 0, 0);
const at = (second: number) => new Date(BASE + second * 1000).toISOString();
const TYPES = ['POLICY_DEPLOYED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'POLICY_ROLLED_BACK'] as const;
const FIELDS = ['id', 'seq', 'eventType', 'policyModule', 'policyFunction', 'actorId', 'occurredAt', 'payload', 'hash', 'previousHash'];

describe('audit endpoints over HTTP', () => {
  let h: Harness;
  let acme: AuditRecord[];

  beforeAll(async () => {
    h = await startHarness();
    const trail = createAuditTrail(h.store.auditLinks);
    const { recorder } = trail;
    // acme: seq n happens at second n; every third record concerns `score`, the rest `eligible`.
    const receipts: AuditReceipt[] = [];
    for (let n = 1; n <= 12; n += 1) {
      receipts.push(
        await recorder.append('acme', {
          eventType: TYPES[(n - 1) % TYPES.length]!,
          policyModule: 'com.acme.lending',
          policyFunction: n % 3 === 0 ? 'score' : 'eligible',
          actorId: `user-${n}`,
          occurredAt: at(n),
          payload: { n },
        }),
      );
    }
    for (let n = 1; n <= 3; n += 1) {
      await recorder.append('globex', { eventType: 'POLICY_DEPLOYED', policyModule: 'com.acme.lending', policyFunction: 'score', actorId: 'g', occurredAt: at(n), payload: {} });
    }
    await recorder.append('tampered', { eventType: 'POLICY_DEPLOYED', actorId: 't', payload: { v: 1 } });
    await recorder.append('tampered', { eventType: 'POLICY_DEPLOYED', actorId: 't', payload: { v: 2 } });
    await trail.close();
    acme = [];
    for await (const record of h.store.audit.scan('acme', 1, 100)) acme.push(record);
    expect(acme.map((record) => record.id)).toEqual(receipts.map((receipt) => receipt.id));
  });
  afterAll(async () => {
    await h.close();
  });

  const seqs = async (response: Response) => {
    expect(response.status).toBe(200);
    return ((await response.json()) as AuditRecord[]).map((r) => r.seq);
  };

  describe('GET /api/v1/audit', () => {
    it('lists every record of the tenant, newest first, in the stored shape', async () => {
      const response = await h.get('/api/v1/audit');
      expect(response.status).toBe(200);
      const records = (await response.json()) as AuditRecord[];
      expect(records.map((r) => r.seq)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      expect(records).toEqual([...acme].reverse());
      for (const record of records) expect(Object.keys(record).sort()).toEqual([...FIELDS].sort());
      for (let i = 0; i + 1 < records.length; i += 1) expect(records[i]!.previousHash).toBe(records[i + 1]!.hash);
    });

    it('never shows another tenant its records', async () => {
      expect(await seqs(await h.get('/api/v1/audit', { tenant: 'globex' }))).toEqual([3, 2, 1]);
      expect(await seqs(await h.get('/api/v1/audit', { tenant: 'nobody' }))).toEqual([]);
    });

    it('pages with limit and before', async () => {
      expect(await seqs(await h.get('/api/v1/audit?limit=5'))).toEqual([12, 11, 10, 9, 8]);
      expect(await seqs(await h.get('/api/v1/audit?limit=5&before=8'))).toEqual([7, 6, 5, 4, 3]);
      expect(await seqs(await h.get('/api/v1/audit?limit=5&before=3'))).toEqual([2, 1]);
      expect(await seqs(await h.get('/api/v1/audit?before=1'))).toEqual([]);
      expect(await seqs(await h.get('/api/v1/audit?limit=1000'))).toHaveLength(12);
    });

    it('charges one rate-limit point per 100 records asked for (the limit, not the records found)', async () => {
      const remaining = async (path: string) => {
        const response = await h.get(path, { tenant: 'charged' });
        expect(response.status).toBe(200);
        return Number(/;r=(\d+);/.exec(response.headers.get('RateLimit') ?? '')?.[1]);
      };
      const first = await remaining('/api/v1/audit');
      expect(first - (await remaining('/api/v1/audit?limit=1000'))).toBe(10);
      expect(first - 10 - (await remaining('/api/v1/audit/type/POLICY_DEPLOYED?limit=250'))).toBe(3);
      expect(first - 13 - (await remaining('/api/v1/audit/policy/com.acme.lending/score?limit=1'))).toBe(1);
      expect(first - 14 - (await remaining(`/api/v1/audit/range?startTime=${at(1)}&endTime=${at(2)}&limit=100`))).toBe(1);
      expect(first - 15 - (await remaining('/api/v1/audit/verify'))).toBe(1);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['before=0', 'before'],
      ['before=abc', 'before'],
      ['before=99999999999999999999', 'before'],
    ])('400 for %s', async (query, name) => {
      const response = await h.get(`/api/v1/audit?${query}`);
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_QUERY_INVALID');
      expect(body.error).toContain(`\`${name}\``);
    });
  });

  describe('GET /api/v1/audit/type/{eventType}', () => {
    it('lists records of that type, newest first', async () => {
      expect(await seqs(await h.get('/api/v1/audit/type/POLICY_DEPLOYED'))).toEqual([9, 5, 1]);
      expect(await seqs(await h.get('/api/v1/audit/type/POLICY_EVALUATED?limit=3'))).toEqual([11, 10, 7]);
      expect(await seqs(await h.get('/api/v1/audit/type/POLICY_EVALUATED?before=7'))).toEqual([6, 3, 2]);
    });

    it('400 for an event type the service never records, listing the known ones', async () => {
      const response = await h.get('/api/v1/audit/type/NO_SUCH_TYPE');
      expect(response.status).toBe(400);
      const body = (await response.json()) as { code: string; error: string };
      expect(body.code).toBe('ERR_REQUEST_PATH_INVALID');
      expect(body.error).toContain('`NO_SUCH_TYPE`');
      for (const known of AUDIT_EVENT_TYPES) {
        expect(body.error).toContain(known);
      }
    });

    it('400 for bad paging', async () => {
      expect((await h.get('/api/v1/audit/type/POLICY_DEPLOYED?limit=x')).status).toBe(400);
    });
  });

  describe('GET /api/v1/audit/policy/{policyModule}/{policyFunction}', () => {
    it('lists records of that module and function, newest first', async () => {
      expect(await seqs(await h.get('/api/v1/audit/policy/com.acme.lending/score'))).toEqual([12, 9, 6, 3]);
      expect(await seqs(await h.get('/api/v1/audit/policy/com.acme.lending/eligible?limit=2'))).toEqual([11, 10]);
      expect(await seqs(await h.get('/api/v1/audit/policy/com.acme.lending/score?before=9'))).toEqual([6, 3]);
      expect(await seqs(await h.get('/api/v1/audit/policy/com.other/score'))).toEqual([]);
    });

    it('400 for bad paging', async () => {
      expect((await h.get('/api/v1/audit/policy/com.acme.lending/score?before=-3')).status).toBe(400);
    });
  });

  describe('GET /api/v1/audit/range', () => {
    const range = (start: string, end: string, extra = '') =>
      h.get(`/api/v1/audit/range?startTime=${encodeURIComponent(start)}&endTime=${encodeURIComponent(end)}${extra}`);

    it('includes both ends of the window, newest first', async () => {
      expect(await seqs(await range(at(3), at(6)))).toEqual([6, 5, 4, 3]);
      expect(await seqs(await range(at(5), at(5)))).toEqual([5]);
      expect(await seqs(await range(at(0), at(100)))).toHaveLength(12);
      expect(await seqs(await range(at(100), at(200)))).toEqual([]);
    });

    it('accepts zone offsets and compares instants', async () => {
      expect(await seqs(await range('2026-01-01T01:00:03+01:00', '2025-12-31T19:00:06-05:00'))).toEqual([6, 5, 4, 3]);
    });

    it('rounds finer-than-millisecond bounds inward', async () => {
      expect(await seqs(await range('2026-01-01T00:00:02.9999Z', '2026-01-01T00:00:05.0009Z'))).toEqual([5, 4, 3]);
      expect(await seqs(await range('2026-01-01T00:00:03.0001Z', '2026-01-01T00:00:05Z'))).toEqual([5, 4]);
    });

    it('pages within the window', async () => {
      expect(await seqs(await range(at(2), at(9), '&limit=3'))).toEqual([9, 8, 7]);
      expect(await seqs(await range(at(2), at(9), '&limit=3&before=7'))).toEqual([6, 5, 4]);
    });

    it.each([
      ['startTime missing', `/api/v1/audit/range?endTime=${at(5)}`, 'startTime'],
      ['endTime missing', `/api/v1/audit/range?startTime=${at(5)}`, 'endTime'],
      ['both missing', '/api/v1/audit/range', 'startTime'],
      ['startTime empty', `/api/v1/audit/range?startTime=&endTime=${at(5)}`, 'startTime'],
      ['a word', `/api/v1/audit/range?startTime=yesterday&endTime=${at(5)}`, 'startTime'],
      ['month 13', `/api/v1/audit/range?startTime=${at(1)}&endTime=2026-13-01T00:00:00Z`, 'endTime'],
      ['30 February', `/api/v1/audit/range?startTime=2026-02-30T00:00:00Z&endTime=${at(5)}`, 'startTime'],
      ['no time zone', `/api/v1/audit/range?startTime=2026-01-01T00:00:00&endTime=${at(5)}`, 'startTime'],
      ['a date only', `/api/v1/audit/range?startTime=2026-01-01&endTime=${at(5)}`, 'startTime'],
      ['hour 24', `/api/v1/audit/range?startTime=${at(1)}&endTime=2026-01-01T24:00:00Z`, 'endTime'],
      ['repeated', `/api/v1/audit/range?startTime=${at(1)}&startTime=${at(2)}&endTime=${at(5)}`, 'startTime'],
    ])('400 when %s', async (_label, path, name) => {
      const response = await h.get(path);
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_QUERY_INVALID');
      expect(body.error).toContain(`\`${name}\``);
    });

    it('400 when startTime is after endTime', async () => {
      const response = await range(at(6), at(3));
      expect(response.status).toBe(400);
      expect((await envelope(response)).error).toContain('must not be after');
    });

    it('400 for bad paging', async () => {
      expect((await range(at(1), at(5), '&limit=0')).status).toBe(400);
    });
  });

  describe('GET /api/v1/audit/verify', () => {
    it('reports an intact chain', async () => {
      const response = await h.get('/api/v1/audit/verify');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        valid: true,
        checked: 12,
        headSeq: 12,
        headHash: acme[11]!.hash,
        firstInvalidSeq: null,
        reason: null,
        unlinked: 0,
        oldestUnlinkedAgeMs: null,
      });
    });

    it('walks the whole chain again when asked with full=true, with the same answer', async () => {
      const cached = await (await h.get('/api/v1/audit/verify')).json();
      const response = await h.get('/api/v1/audit/verify?full=true');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(cached);
    });

    it.each(['full=yes', 'full=', 'full=true&full=false'])('400 for %s', async (query) => {
      const response = await h.get(`/api/v1/audit/verify?${query}`);
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_QUERY_INVALID');
      expect(body.error).toContain('`full`');
    });

    it('reports an empty chain as valid', async () => {
      const response = await h.get('/api/v1/audit/verify', { tenant: 'nobody' });
      expect(await response.json()).toEqual({ valid: true, checked: 0, headSeq: 0, headHash: null, firstInvalidSeq: null, reason: null, unlinked: 0, oldestUnlinkedAgeMs: null });
    });

    it('finds a record changed behind the service’s back', async () => {
      // Someone with direct access to the file: drops the append-only guard and edits a payload.
      const db = (h.store as SqliteStore).raw;
      db.exec('DROP TRIGGER audit_records_no_update');
      db.prepare("UPDATE audit_records SET payload = '{\"v\":3}' WHERE tenant_id = 'tampered' AND seq = 2").run();
      const response = await h.get('/api/v1/audit/verify', { tenant: 'tampered' });
      const result = (await response.json()) as Record<string, unknown>;
      expect(result).toMatchObject({ valid: false, checked: 1, headSeq: 2, firstInvalidSeq: 2 });
      expect(result.reason).toEqual(expect.stringContaining('hash'));
    });
  });

  it.each([
    '/api/v1/audit',
    '/api/v1/audit/verify',
    '/api/v1/audit/type/POLICY_DEPLOYED',
    '/api/v1/audit/policy/com.acme.lending/score',
    `/api/v1/audit/range?startTime=${at(1)}&endTime=${at(2)}`,
  ])('%s requires ADMIN', async (path) => {
    const response = await h.get(path, { role: 'MEMBER' });
    expect(response.status).toBe(403);
    expect((await envelope(response)).code).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
  });
});

describe('audit lists against a small quota', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ rateLimitPoints: 15 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('refuses a list whose points do not fit what is left with 429, spending nothing, and says how lists are charged', async () => {
    expect((await h.get('/api/v1/audit?limit=1000')).status).toBe(200);
    const refused = await h.get('/api/v1/audit?limit=600');
    expect(refused.status).toBe(429);
    const body = await envelope(refused);
    expect(body.code).toBe('ERR_RATE_LIMIT_EXCEEDED');
    expect(body.error).toContain('this request needs 6 points (one per 100 records asked for) and 5 remain');
    // The refused list spent nothing: five points are still there for a list of 500.
    expect((await h.get('/api/v1/audit?limit=500')).status).toBe(200);
    expect((await h.get('/api/v1/audit?limit=1')).status).toBe(429);
  });
});

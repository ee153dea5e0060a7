// The workflow list over real HTTP, on each store: workflows started, signalled (approved and
// rejected), cancelled and left waiting, then listed with each filter and in pages; bad queries are
// 400s, a VIEWER is refused, and a bystander tenant sees none of them (nor they its own).
// Needs `npx tsc -p tsconfig.json` first (engine threads); the MongoDB run needs MONGODB_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMongoStore, type Store } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, uniqueDatabaseName } from '../support/index.js';
import { startWorkflowsHarness, type TenantInfo, type WorkflowsHarness } from './workflows-support/workflows-harness.js';

const ORIGINATION = `Module acme.origination.

Define Applicant has age as Int, score as Int.

Rule identityVerified given applicant as Applicant, produce Bool:
  Return applicant.age is at least 18.

Workflow originateLoan given applicant as Applicant:
  Step identity: identityVerified(applicant).
  Step review: Await "underwriter-approval".

Workflow quickCheck given applicant as Applicant:
  Step identity: identityVerified(applicant).
`;

const SERVICING = `Module acme.servicing.

Rule balanceCleared given balance as Int, produce Bool:
  Return balance is at most 0.

Workflow closeLoan given balance as Int:
  Step cleared: balanceCleared(balance).
`;

interface Item {
  workflowId: string;
  policyModule: string;
  workflow: string;
  version: number;
  status: string;
  finalResult: boolean | null;
  currentStep: string | null;
  startedAt: string;
  finishedAt: string | null;
}

interface Page {
  content: Item[];
  totalElements: number;
  totalPages: number;
  page: number;
  size: number;
}

type Name = 'waitingFirst' | 'waitingSecond' | 'approved' | 'rejected' | 'cancelled' | 'quick' | 'closed';

function listScenario(name: string, openStore?: () => Promise<Store>): void {
  describe(name, () => {
    let h: WorkflowsHarness;
    let tenant: TenantInfo;
    let bystander: TenantInfo;
    const ids = {} as Record<Name, string>;
    let theirs: string;
    const list = (query = '', who: TenantInfo = tenant, role: 'MEMBER' | 'VIEWER' | 'ADMIN' = 'MEMBER') =>
      h.call<Page>(who, role, 'GET', `/api/v1/workflows${query}`);
    const listed = async (query = '', who: TenantInfo = tenant) => {
      const answer = await list(query, who);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.content.map((w) => (Object.entries(ids).find(([, id]) => id === w.workflowId)?.[0] ?? w.workflowId));
    };

    async function start(who: TenantInfo, policyModule: string, workflow: string, context: Record<string, unknown>): Promise<string> {
      const answer = await h.call<{ workflowId: string }>(who, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule, workflow, context });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.workflowId;
    }
    const until = (id: string, status: string, who: TenantInfo = tenant) => h.until(who, id, (s) => s.status === status);
    const signal = (id: string, approved: boolean) =>
      h.call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${id}/signals`, { signal: 'underwriter-approval', approved });

    beforeAll(async () => {
      h = await startWorkflowsHarness({ minuteMs: 60_000, ...(openStore ? { openStore } : {}) });
      ({ a: tenant, b: bystander } = h.policies.tenants);
      for (const who of [tenant, bystander]) {
        await h.deploy(who, ORIGINATION);
        await h.deploy(who, SERVICING);
      }
      const adult = { applicant: { age: 30, score: 700 } };
      // One at a time, so that each starts after the one before.
      for (const key of ['waitingFirst', 'approved', 'rejected', 'cancelled', 'waitingSecond'] as const) {
        ids[key] = await start(tenant, 'acme.origination', 'originateLoan', adult);
        await until(ids[key], 'WAITING');
      }
      ids.quick = await start(tenant, 'acme.origination', 'quickCheck', adult);
      ids.closed = await start(tenant, 'acme.servicing', 'closeLoan', { balance: 0 });
      expect((await signal(ids.approved, true)).status).toBe(200);
      expect((await signal(ids.rejected, false)).status).toBe(200);
      expect((await h.call(tenant, 'MEMBER', 'POST', `/api/v1/workflows/${ids.cancelled}/cancel`)).status).toBe(200);
      for (const key of ['approved', 'rejected', 'quick', 'closed'] as const) await until(ids[key], 'COMPLETED');
      await until(ids.cancelled, 'CANCELLED');
      theirs = await start(bystander, 'acme.origination', 'originateLoan', adult);
      await until(theirs, 'WAITING', bystander);
      // The summary follows each event: wait until the list has caught up with the ended ones.
      for (let attempt = 0; attempt < 400; attempt += 1) {
        if ((await list('?status=COMPLETED')).body.totalElements === 4 && (await list('?status=CANCELLED')).body.totalElements === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }, 120_000);

    afterAll(async () => {
      await h?.close();
    });

    it('lists the tenant’s workflows newest start first, each with its summary and nothing more', async () => {
      const answer = await list();
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ totalElements: 7, totalPages: 1, page: 0, size: 20 });
      const states = await Promise.all(Object.values(ids).map(async (id) => (await h.call<{ workflowId: string; startedAt: string }>(tenant, 'MEMBER', 'GET', `/api/v1/workflows/${id}`)).body));
      const newestFirst = states
        .sort((x, y) => (x.startedAt === y.startedAt ? (x.workflowId < y.workflowId ? 1 : -1) : x.startedAt < y.startedAt ? 1 : -1))
        .map((s) => s.workflowId);
      expect(answer.body.content.map((w) => w.workflowId)).toEqual(newestFirst);
      const byName = Object.fromEntries(answer.body.content.map((w) => [Object.entries(ids).find(([, id]) => id === w.workflowId)![0], w])) as Record<Name, Item>;
      for (const item of answer.body.content) {
        expect(Object.keys(item).sort()).toEqual(['currentStep', 'finalResult', 'finishedAt', 'policyModule', 'startedAt', 'status', 'version', 'workflow', 'workflowId']);
      }
      expect(byName.waitingFirst).toMatchObject({ policyModule: 'acme.origination', workflow: 'originateLoan', version: 1, status: 'WAITING', currentStep: 'review', finalResult: null, finishedAt: null });
      expect(byName.approved).toMatchObject({ status: 'COMPLETED', finalResult: true, currentStep: null });
      expect(byName.rejected).toMatchObject({ status: 'COMPLETED', finalResult: false, currentStep: null });
      expect(byName.cancelled).toMatchObject({ status: 'CANCELLED', finalResult: null, currentStep: null });
      expect(byName.closed).toMatchObject({ policyModule: 'acme.servicing', workflow: 'closeLoan', status: 'COMPLETED', finalResult: true });
      for (const key of ['approved', 'rejected', 'cancelled', 'quick', 'closed'] as const) {
        expect(Date.parse(byName[key].finishedAt!)).toBeGreaterThanOrEqual(Date.parse(byName[key].startedAt));
      }
    });

    it('filters by status, module, workflow and start time', async () => {
      expect(await listed('?status=WAITING')).toEqual(['waitingSecond', 'waitingFirst']);
      expect((await listed('?status=COMPLETED')).sort()).toEqual(['approved', 'closed', 'quick', 'rejected']);
      expect(await listed('?status=CANCELLED')).toEqual(['cancelled']);
      expect(await listed('?status=RUNNING')).toEqual([]);
      expect(await listed('?status=FAILED')).toEqual([]);
      expect(await listed('?policyModule=acme.servicing')).toEqual(['closed']);
      expect(await listed('?workflow=quickCheck')).toEqual(['quick']);
      expect(await listed('?policyModule=acme.origination&workflow=originateLoan&status=COMPLETED')).toEqual(['rejected', 'approved']);
      expect(await listed('?policyModule=acme.nothing')).toEqual([]);

      const all = await listed();
      const pivot = (await list()).body.content.find((w) => w.workflowId === ids.cancelled)!.startedAt;
      const from = await listed(`?startedAfter=${encodeURIComponent(pivot)}`);
      const before = await listed(`?startedBefore=${encodeURIComponent(pivot)}`);
      // At or after, and before: the two halves make the whole, in order.
      expect([...from, ...before]).toEqual(all);
      expect(from).toContain('cancelled');
      expect(before).toEqual(expect.arrayContaining(['waitingFirst', 'approved', 'rejected']));
      // The same instant in another zone.
      const shifted = new Date(Date.parse(pivot)).toISOString().replace('Z', '+00:00');
      expect(await listed(`?startedAfter=${encodeURIComponent(shifted)}&startedBefore=${encodeURIComponent(shifted)}`)).toEqual([]);
      expect(await listed('?startedAfter=2999-01-01T00:00:00Z')).toEqual([]);
    });

    it('pages with the interface’s envelope', async () => {
      const all = (await list()).body.content.map((w) => w.workflowId);
      const pages = await Promise.all([0, 1, 2, 3].map(async (page) => (await list(`?size=3&page=${page}`)).body));
      expect(pages.map((p) => [p.page, p.size, p.totalElements, p.totalPages, p.content.length])).toEqual([
        [0, 3, 7, 3, 3],
        [1, 3, 7, 3, 3],
        [2, 3, 7, 3, 1],
        [3, 3, 7, 3, 0],
      ]);
      expect(pages.flatMap((p) => p.content.map((w) => w.workflowId))).toEqual(all);
      expect((await list('?size=100')).body.size).toBe(100);
    });

    it('answers a bad query with a 400 in the error envelope, and a VIEWER with a 403', async () => {
      const bad = [
        'status=DONE', 'status=waiting', 'status=', 'status=WAITING&status=RUNNING', 'startedAfter=yesterday', 'startedBefore=2026-13-01T00:00:00Z',
        'startedAfter=2026-05-01T10:00:00', 'startedAfter=2026-05-02T00:00:00Z&startedBefore=2026-05-01T00:00:00Z',
        'page=-1', 'page=abc', 'page=1000001', 'size=0', 'size=101', 'size=1.5', 'policyModule=', `workflow=${'x'.repeat(300)}`,
      ];
      for (const query of bad) {
        const answer = await h.call<{ result: null; error: string; code: string }>(tenant, 'MEMBER', 'GET', `/api/v1/workflows?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body, query).toMatchObject({ result: null, code: 'ERR_REQUEST_QUERY_INVALID' });
        expect(answer.body.error, query).toMatch(/query parameter `(status|startedAfter|startedBefore|page|size|policyModule|workflow)`/);
      }
      const viewer = await list('', tenant, 'VIEWER');
      expect(viewer.status).toBe(403);
      expect(viewer.body).toMatchObject({ result: null });
      expect((await list('', tenant, 'ADMIN')).status).toBe(200);
    });

    it('shows a bystander tenant none of them, and the tenant none of the bystander’s', async () => {
      const theirsListed = await list('', bystander);
      expect(theirsListed.body.content.map((w) => w.workflowId)).toEqual([theirs]);
      expect(theirsListed.body.totalElements).toBe(1);
      for (const query of ['?status=COMPLETED', '?status=CANCELLED', '?policyModule=acme.servicing', '?workflow=quickCheck']) {
        expect(await listed(query, bystander), query).toEqual([]);
      }
      expect((await list()).body.content.map((w) => w.workflowId)).not.toContain(theirs);
      // The bystander's token with the tenant's header is refused before any list.
      const crossed = await h.call(bystander, 'MEMBER', 'GET', '/api/v1/workflows', undefined, { 'x-tenant-id': tenant.tenantId });
      expect(crossed.status).toBe(403);
    });
  });
}

listScenario('the workflow list over HTTP on SQLite');

describeWithMongo('the workflow list on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_workflow_list');
  listScenario('the workflow list over HTTP on MongoDB', () => openMongoStore({ url, database }));
  afterAll(() => dropMongoDatabase(url, database));
});

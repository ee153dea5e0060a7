import { describe, expect, it } from 'vitest';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import type { StoredWorkflowEvent, WorkflowEvent, WorkflowListItem, WorkflowRecord } from '../../src/workflows/index.js';
import type { StoreTarget } from '../support/store-targets.js';

function record(workflowId: string, spec: Partial<WorkflowRecord> = {}): WorkflowRecord {
  return {
    workflowId,
    policyModule: 'lending.origination',
    version: 2,
    workflow: 'originateLoan',
    context: { applicant: { age: 30, 'dotted.key': 1, $dollar: true }, amounts: [1, 2.5, null] },
    actorId: 'alice',
    startedAt: '2026-05-01T10:00:00.000Z',
    ...spec,
  };
}

/** Any entry the store must keep as it is, whether or not a workflow would write it. */
function event(sequence: number, eventType = 'POLICY_EVALUATED', payload: Record<string, unknown> = { step: `s${sequence}`, result: true }): WorkflowEvent {
  const entry: StoredWorkflowEvent = { sequence, eventType, payload, occurredAt: `2026-05-01T10:00:${String(sequence % 60).padStart(2, '0')}.000Z` };
  return entry as WorkflowEvent;
}

/** Workflows and their event logs: unique ids across tenants, gapless logs, and racing appends. */
export function runWorkflowStoreContract(getStore: () => Store, getTarget: () => StoreTarget, newTenant: (label: string) => string): void {
  describe('workflows', () => {
    it('stores a workflow once, under an id no other tenant can take, and tells whose it is', async () => {
      const store = getStore();
      const tenant = newTenant('wf');
      const other = newTenant('wf-other');
      const id = `wf-${Math.random().toString(36).slice(2, 10)}`;
      expect(await store.workflows.create(tenant, record(id))).toBe(true);
      expect(await store.workflows.create(other, record(id))).toBe(false);
      expect(await store.workflows.get(tenant, id)).toEqual(record(id));
      expect(await store.workflows.get(other, id)).toBeNull();
      expect(await store.workflows.ownerOf(id)).toBe(tenant);
      expect(await store.workflows.ownerOf('nobody-has-this')).toBeNull();
      expect(await store.workflows.ownerOf('not an id!')).toBeNull();
      await expect(store.workflows.create(tenant, record('bad id'))).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('appends a gapless log, refuses a broken link and reads from a sequence on', async () => {
      const store = getStore();
      const tenant = newTenant('wf-log');
      const id = `wf-${Math.random().toString(36).slice(2, 10)}`;
      await store.workflows.create(tenant, record(id));
      expect(await store.workflows.append(tenant, id, [event(1, 'WORKFLOW_STARTED', {}), event(2), event(3)])).toBe(3);
      expect(await store.workflows.append(tenant, id, [event(4), event(5)])).toBe(2);
      await expect(store.workflows.append(tenant, id, [event(7)])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.append(tenant, id, [event(6), event(8)])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.append(newTenant('wf-log-other'), id, [event(6)])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.append(tenant, id, [event(6, 'lower-case')])).rejects.toBeInstanceOf(StoreArgumentError);
      const all = await store.workflows.events(tenant, id, 0, 100);
      expect(all.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(all[0]).toEqual(event(1, 'WORKFLOW_STARTED', {}));
      expect((await store.workflows.events(tenant, id, 4, 100)).map((e) => e.sequence)).toEqual([4, 5]);
      expect((await store.workflows.events(tenant, id, 2, 2)).map((e) => e.sequence)).toEqual([2, 3]);
      expect(await store.workflows.events(tenant, id, 6, 100)).toEqual([]);
      expect(await store.workflows.events(newTenant('wf-log-reader'), id, 0, 100)).toEqual([]);
      expect(await store.workflows.lastEvent(tenant, id)).toEqual(event(5));
      expect(await store.workflows.lastEvent(newTenant('wf-log-reader'), id)).toBeNull();
      expect(await store.workflows.lastEvent(tenant, 'not an id!')).toBeNull();
      const empty = `wf-${Math.random().toString(36).slice(2, 10)}`;
      await store.workflows.create(tenant, record(empty));
      expect(await store.workflows.lastEvent(tenant, empty)).toBeNull();
    });

    it('stores each sequence once when writers race, and tells each how many it stored', async () => {
      const tenant = newTenant('wf-race');
      const id = `wf-${Math.random().toString(36).slice(2, 10)}`;
      await getStore().workflows.create(tenant, record(id));
      await getStore().workflows.append(tenant, id, [event(1, 'WORKFLOW_STARTED', {})]);
      const stores = [getStore(), ...(await Promise.all(Array.from({ length: 3 }, () => getTarget().connect())))];
      const counts = await Promise.all(
        stores.flatMap((s, i) => [0, 1].map((j) => s.workflows.append(tenant, id, [event(2, 'POLICY_EVALUATED', { by: `${i}-${j}` }), event(3)]))),
      );
      expect(counts.filter((n) => n === 2)).toHaveLength(1);
      expect(counts.every((n) => n === 0 || n === 2)).toBe(true);
      expect((await getStore().workflows.events(tenant, id, 0, 100)).map((e) => e.sequence)).toEqual([1, 2, 3]);
    }, 60_000);

    it('counts each tenant’s unfinished workflows and stored bytes as they are written, also by racing writers', async () => {
      const store = getStore();
      const tenant = newTenant('wf-usage');
      const other = newTenant('wf-usage-other');
      expect(await store.workflows.usage(tenant)).toEqual({ unfinished: 0, storedBytes: 0 });
      const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
      const ids = Array.from({ length: 3 }, (_, i) => `wf-usage-${i}-${Math.random().toString(36).slice(2, 10)}`);
      const context = { name: 'Zoë 张', amount: 1 };
      for (const id of ids) expect(await store.workflows.create(tenant, record(id, { context }))).toBe(true);
      // A taken id stores nothing, for either tenant.
      expect(await store.workflows.create(tenant, record(ids[0]!))).toBe(false);
      expect(await store.workflows.create(other, record(ids[0]!))).toBe(false);
      let stored = 3 * bytes(context);
      expect(await store.workflows.usage(tenant)).toEqual({ unfinished: 3, storedBytes: stored });

      const events = [event(1, 'WORKFLOW_STARTED', {}), event(2, 'POLICY_EVALUATED', { step: 'é', result: true })];
      expect(await store.workflows.append(tenant, ids[0]!, events)).toBe(2);
      stored += bytes({}) + bytes({ step: 'é', result: true });
      // A race lost stores and counts nothing.
      expect(await store.workflows.append(tenant, ids[0]!, [event(2, 'POLICY_EVALUATED', { step: 'a much longer payload' })])).toBe(0);
      expect(await store.workflows.usage(tenant)).toEqual({ unfinished: 3, storedBytes: stored });

      await store.workflows.markFinished(tenant, ids[0]!, '2026-05-01T11:00:00.000Z');
      await store.workflows.markFinished(tenant, ids[0]!, '2026-05-01T12:00:00.000Z');
      await store.workflows.markFinished(other, ids[1]!, '2026-05-01T12:00:00.000Z');
      expect(await store.workflows.usage(tenant)).toEqual({ unfinished: 2, storedBytes: stored });
      expect(await store.workflows.usage(other)).toEqual({ unfinished: 0, storedBytes: 0 });

      // Writers on separate connections, several starts each at once: every one is counted.
      const stores = [store, ...(await Promise.all(Array.from({ length: 3 }, () => getTarget().connect())))];
      await Promise.all(
        stores.flatMap((s, i) => Array.from({ length: 5 }, (_, j) => s.workflows.create(tenant, record(`wf-usage-race-${i}-${j}-${Math.random().toString(36).slice(2, 8)}`, { context })))),
      );
      expect(await stores[1]!.workflows.usage(tenant)).toEqual({ unfinished: 22, storedBytes: stored + 20 * bytes(context) });
      await expect(store.workflows.usage('')).rejects.toBeInstanceOf(StoreArgumentError);
    }, 60_000);

    it('lists unfinished workflows of every tenant in pages by id, leaving out those marked finished', async () => {
      const store = getStore();
      const tenants = [newTenant('wf-open'), newTenant('wf-open-other')];
      const ids = Array.from({ length: 7 }, (_, i) => `wf-open-${i}-${Math.random().toString(36).slice(2, 10)}`);
      for (const [i, id] of ids.entries()) await store.workflows.create(tenants[i % 2]!, record(id));
      const finished = [ids[1]!, ids[4]!];
      for (const id of finished) await store.workflows.markFinished(tenants[ids.indexOf(id) % 2]!, id, '2026-05-01T11:00:00+02:00');
      // Another tenant's mark, or one of an unknown workflow, changes nothing.
      await store.workflows.markFinished(tenants[1]!, ids[0]!, '2026-05-01T11:00:00.000Z');
      await store.workflows.markFinished(tenants[0]!, 'nobody-has-this', '2026-05-01T11:00:00.000Z');
      await store.workflows.markFinished(tenants[0]!, 'not an id!', '2026-05-01T11:00:00.000Z');
      // Marking again keeps it finished.
      await store.workflows.markFinished(tenants[1]!, ids[1]!, '2026-05-01T12:00:00.000Z');

      // The backend holds other cases' workflows too: walk every page, then look at ours.
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await store.workflows.listUnfinished(after, 3);
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map((w) => w.workflowId));
        for (const w of page) if (ids.includes(w.workflowId)) expect(w.tenantId).toBe(tenants[ids.indexOf(w.workflowId) % 2]);
        if (page.length < 3) break;
        after = page.at(-1)!.workflowId;
      }
      expect(seen).toEqual([...seen].sort());
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => ids.includes(id))).toEqual(ids.filter((id) => !finished.includes(id)).sort());

      await expect(store.workflows.listUnfinished(null, 0)).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.listUnfinished('not an id!', 10)).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.markFinished(tenants[0]!, ids[0]!, 'yesterday')).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await store.workflows.get(tenants[1]!, ids[1]!)).toEqual(record(ids[1]!));
    });

    it('lists a tenant’s workflows newest start first (ties: id descending), filtered, in pages, with their summaries', async () => {
      const store = getStore();
      const tenant = newTenant('wf-list');
      const bystander = newTenant('wf-list-bystander');
      const at = (minute: number) => `2026-05-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
      const specs: Array<[id: string, minute: number, spec: Partial<WorkflowRecord>]> = [
        ['a-early', 1, {}],
        ['b-tie', 5, {}],
        ['c-tie', 5, { policyModule: 'lending.servicing' }],
        ['d-late', 9, { workflow: 'closeLoan' }],
        ['e-latest', 12, { policyModule: 'lending.servicing', workflow: 'closeLoan' }],
      ];
      for (const [id, minute, spec] of specs) {
        expect(await store.workflows.create(tenant, record(id + tenant, { ...spec, startedAt: at(minute) }))).toBe(true);
      }
      // Another tenant's workflows in the same range, with the same names and statuses.
      for (const [id, minute, spec] of specs) await store.workflows.create(bystander, record(`${id}${bystander}`, { ...spec, startedAt: at(minute) }));
      const id = (name: string) => name + tenant;
      await store.workflows.saveSummary(tenant, id('b-tie'), { status: 'WAITING', currentStep: 'review', finalResult: null, finishedAt: null, seq: 4 });
      await store.workflows.markFinished(tenant, id('c-tie'), '2026-05-01T11:00:00+01:00', {
        status: 'COMPLETED', currentStep: null, finalResult: false, finishedAt: '2026-05-01T11:00:00+01:00', seq: 3,
      });
      await store.workflows.markFinished(tenant, id('d-late'), at(30), { status: 'COMPLETED', currentStep: null, finalResult: true, finishedAt: at(30), seq: 7 });
      await store.workflows.saveSummary(bystander, `b-tie${bystander}`, { status: 'WAITING', currentStep: 'review', finalResult: null, finishedAt: null, seq: 4 });

      const list = (query: Record<string, unknown> = {}) => store.workflows.list(tenant, { offset: 0, limit: 100, ...query });
      const ids = async (query: Record<string, unknown> = {}) => (await list(query)).items.map((w) => w.workflowId.slice(0, -tenant.length));

      const all = await list();
      expect(all.total).toBe(5);
      expect(all.items.map((w) => w.workflowId)).toEqual(['e-latest', 'd-late', 'c-tie', 'b-tie', 'a-early'].map(id));
      const byId = Object.fromEntries(all.items.map((w) => [w.workflowId.slice(0, -tenant.length), w]));
      expect(byId['b-tie']).toEqual<WorkflowListItem>({
        workflowId: id('b-tie'), policyModule: 'lending.origination', workflow: 'originateLoan', version: 2,
        status: 'WAITING', currentStep: 'review', finalResult: null, startedAt: at(5), finishedAt: null,
      });
      expect(byId['c-tie']).toMatchObject({ status: 'COMPLETED', finalResult: false, currentStep: null, finishedAt: '2026-05-01T10:00:00.000Z' });
      expect(byId['d-late']).toMatchObject({ status: 'COMPLETED', finalResult: true, finishedAt: at(30) });
      // Created and not yet appended to: running, before its first step.
      expect(byId['a-early']).toMatchObject({ status: 'RUNNING', currentStep: null, finalResult: null, finishedAt: null });
      expect(Object.keys(byId['a-early']!).sort()).toEqual(['currentStep', 'finalResult', 'finishedAt', 'policyModule', 'startedAt', 'status', 'version', 'workflow', 'workflowId']);

      expect(await ids({ status: 'COMPLETED' })).toEqual(['d-late', 'c-tie']);
      expect(await ids({ status: 'RUNNING' })).toEqual(['e-latest', 'a-early']);
      expect(await ids({ status: 'CANCELLED' })).toEqual([]);
      expect(await ids({ policyModule: 'lending.servicing' })).toEqual(['e-latest', 'c-tie']);
      expect(await ids({ workflow: 'closeLoan' })).toEqual(['e-latest', 'd-late']);
      expect(await ids({ workflow: 'closeLoan', status: 'RUNNING', policyModule: 'lending.servicing' })).toEqual(['e-latest']);
      // From inclusive, before exclusive; bounds in any zone.
      expect(await ids({ startedFrom: at(5), startedBefore: at(12) })).toEqual(['d-late', 'c-tie', 'b-tie']);
      expect(await ids({ startedFrom: '2026-05-01T12:05:00+02:00' })).toEqual(['e-latest', 'd-late', 'c-tie', 'b-tie']);
      expect(await ids({ startedBefore: at(5) })).toEqual(['a-early']);
      expect((await list({ status: 'COMPLETED', startedFrom: at(6) })).total).toBe(1);

      // Pages: the total whatever the page, and pages that neither repeat nor skip.
      const pages = await Promise.all([0, 2, 4, 6].map((offset) => list({ offset, limit: 2 })));
      expect(pages.map((p) => p.total)).toEqual([5, 5, 5, 5]);
      expect(pages.flatMap((p) => p.items.map((w) => w.workflowId))).toEqual(all.items.map((w) => w.workflowId));
      expect(pages[3]!.items).toEqual([]);

      expect((await store.workflows.list(newTenant('wf-list-none'), { offset: 0, limit: 10 })).total).toBe(0);
      expect((await store.workflows.list(bystander, { offset: 0, limit: 100 })).items.every((w) => w.workflowId.endsWith(bystander))).toBe(true);
      for (const bad of [{ limit: 0 }, { offset: -1 }, { status: 'DONE' }, { startedFrom: 'yesterday' }, { policyModule: '' }]) {
        await expect(list(bad), JSON.stringify(bad)).rejects.toBeInstanceOf(StoreArgumentError);
      }
    });

    it('keeps a summary only over an older one, and never another tenant’s', async () => {
      const store = getStore();
      const tenant = newTenant('wf-summary');
      const id = `wf-summary-${Math.random().toString(36).slice(2, 10)}`;
      await store.workflows.create(tenant, record(id));
      const shown = async () => (await store.workflows.list(tenant, { offset: 0, limit: 10 })).items[0]!;
      const running = { status: 'RUNNING', currentStep: 'credit', finalResult: null, finishedAt: null } as const;
      expect(await store.workflows.saveSummary(tenant, id, { ...running, seq: 5 })).toBe(true);
      // An older summary written after the newer one, or one of the same sequence, changes nothing.
      expect(await store.workflows.saveSummary(tenant, id, { ...running, currentStep: 'identity', seq: 3 })).toBe(false);
      expect(await store.workflows.saveSummary(tenant, id, { ...running, currentStep: 'identity', seq: 5 })).toBe(false);
      expect(await shown()).toMatchObject({ status: 'RUNNING', currentStep: 'credit' });
      expect(await store.workflows.saveSummary(newTenant('wf-summary-other'), id, { ...running, currentStep: 'theirs', seq: 9 })).toBe(false);
      expect(await store.workflows.saveSummary(tenant, 'not an id!', { ...running, seq: 9 })).toBe(false);
      expect(await shown()).toMatchObject({ currentStep: 'credit' });

      const ended = { status: 'CANCELLED', currentStep: null, finalResult: null, finishedAt: '2026-05-01T10:05:00.000Z', seq: 9 } as const;
      await store.workflows.markFinished(tenant, id, ended.finishedAt, ended);
      expect(await store.workflows.saveSummary(tenant, id, { ...running, seq: 8 })).toBe(false);
      // A repeated mark with a summary of the same log keeps the first.
      await store.workflows.markFinished(tenant, id, '2026-05-01T11:00:00.000Z', { ...ended, status: 'FAILED', finishedAt: '2026-05-01T11:00:00.000Z' });
      expect(await shown()).toMatchObject({ status: 'CANCELLED', currentStep: null, finishedAt: ended.finishedAt });
      expect(await store.workflows.listUnfinished(null, 100_000)).not.toContainEqual(expect.objectContaining({ workflowId: id }));
      await expect(store.workflows.saveSummary(tenant, id, { ...running, status: 'DONE' as never, seq: 10 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.workflows.saveSummary(tenant, id, { ...running, seq: -1 })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('tells the resume sweep the sequence each unfinished workflow’s summary reflects', async () => {
      const store = getStore();
      const tenant = newTenant('wf-summary-seq');
      const id = `wf-summary-seq-${Math.random().toString(36).slice(2, 10)}`;
      await store.workflows.create(tenant, record(id));
      const seqOf = async () => (await store.workflows.listUnfinished(null, 100_000)).find((w) => w.workflowId === id)?.summarySeq;
      expect(await seqOf()).toBe(0);
      await store.workflows.saveSummary(tenant, id, { status: 'WAITING', currentStep: 'review', finalResult: null, finishedAt: null, seq: 4 });
      expect(await seqOf()).toBe(4);
    });
  });
}

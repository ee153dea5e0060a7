// The service's list on a real (in-memory SQLite) store: the page envelope around the store's page,
// and a finished workflow whose summary write was lost shown, and stored again, as its terminal
// event tells.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createWorkflowService, type WorkflowService } from '../workflow-service.js';
import type { WorkflowEvent } from '../workflow-store.js';

const DEFINITION: WorkflowSignature = {
  name: 'flow',
  params: [],
  steps: [{ name: 'review', kind: 'await', signal: 'approval', withinMinutes: null }],
};
const CALLER = { tenantId: 'acme', actorId: 'alice' };
const event = (sequence: number, eventType: string, payload: Record<string, unknown> = {}) =>
  ({ sequence, eventType, payload, occurredAt: `2026-05-01T10:00:0${sequence}.000Z` }) as WorkflowEvent;

describe('the workflow list of the service', () => {
  let store: SqliteStore;
  let service: WorkflowService;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    service = createWorkflowService({
      workflows: store.workflows,
      quotas: { contextMaxBytes: 1024, maxUnfinished: 10, maxStoredBytes: 1024 * 1024 },
      versions: { activeVersion: async () => 1 },
      definitions: { of: async () => [DEFINITION], find: async () => DEFINITION },
      enqueueRun: async () => undefined,
    });
  });
  afterEach(() => store.close());

  it('pages the tenant’s workflows in the interface’s envelope, each started one summarised at its first step', async () => {
    const started = [];
    for (let i = 0; i < 3; i += 1) started.push((await service.start(CALLER, { policyModule: 'm', workflow: 'flow', context: {} })).workflowId);
    const first = await service.list(CALLER, { page: 0, size: 2 });
    expect(first).toMatchObject({ totalElements: 3, totalPages: 2, page: 0, size: 2 });
    const second = await service.list(CALLER, { page: 1, size: 2 });
    expect([...first.content, ...second.content].map((w) => w.workflowId).sort()).toEqual([...started].sort());
    expect(first.content[0]).toMatchObject({ status: 'RUNNING', currentStep: 'review', finalResult: null, finishedAt: null });
    expect((await service.list({ tenantId: 'globex', actorId: 'bob' }, { page: 0, size: 20 })).totalElements).toBe(0);
  });

  it('shows a finished workflow whose summary was lost as its terminal event tells, and stores that summary', async () => {
    const { workflowId } = await service.start(CALLER, { policyModule: 'm', workflow: 'flow', context: {} });
    await store.workflows.append('acme', workflowId, [
      event(2, 'SIGNAL_AWAITED', { step: 'review', signal: 'approval', timeoutAt: null }),
      event(3, 'SIGNAL_RECEIVED', { step: 'review', signal: 'approval', approved: false }),
      event(4, 'WORKFLOW_COMPLETED', { finalResult: false }),
    ]);
    // The mark landed, the summary did not (lost to a concurrent write of the record).
    await store.workflows.markFinished('acme', workflowId, '2026-05-01T10:00:04.000Z');
    const stale = async () => (await store.workflows.list('acme', { offset: 0, limit: 10 })).items[0]!;
    expect(await stale()).toMatchObject({ status: 'RUNNING', finishedAt: '2026-05-01T10:00:04.000Z' });

    const [shown] = (await service.list(CALLER, { page: 0, size: 20 })).content;
    expect(shown).toMatchObject({ status: 'COMPLETED', finalResult: false, currentStep: null, finishedAt: '2026-05-01T10:00:04.000Z' });
    expect(await stale()).toMatchObject({ status: 'COMPLETED', finalResult: false });
    expect((await service.list(CALLER, { page: 0, size: 20, status: 'COMPLETED' })).totalElements).toBe(1);
  });
});

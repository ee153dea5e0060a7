// Once a start or a signal is stored, a run that cannot be queued (Redis away at that moment) does
// not fail the request: the event stands, so a failure would make a retrying client start a second
// workflow or get 409 for its signal; the workers' resume sweep queues the run instead.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createWorkflowService, type WorkflowService } from '../workflow-service.js';

const DEFINITION: WorkflowSignature = {
  name: 'flow',
  params: [],
  steps: [{ name: 'review', kind: 'await', signal: 'approval', withinMinutes: null }],
};
const CALLER = { tenantId: 'acme', actorId: 'alice' };

describe('a workflow run that cannot be queued', () => {
  let store: SqliteStore;
  let service: WorkflowService;
  let notQueued: string[];

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    notQueued = [];
    service = createWorkflowService({
      workflows: store.workflows,
      quotas: { contextMaxBytes: 1024, maxUnfinished: 10, maxStoredBytes: 1024 * 1024 },
      versions: { activeVersion: async () => 1 },
      definitions: { of: async () => [DEFINITION], find: async () => DEFINITION },
      enqueueRun: () => Promise.reject(new Error('Redis is away')),
      onRunNotQueued: (_error, _tenantId, workflowId) => void notQueued.push(workflowId),
    });
  });
  afterEach(() => store.close());

  it('answers the start with its id, stores WORKFLOW_STARTED and reports the run not queued', async () => {
    const { workflowId } = await service.start(CALLER, { policyModule: 'm', workflow: 'flow', context: {} });
    expect((await store.workflows.events('acme', workflowId, 0, 10)).map((e) => e.eventType)).toEqual(['WORKFLOW_STARTED']);
    expect(notQueued).toEqual([workflowId]);
  });

  it('answers a signal with the state after it, the signal stored once', async () => {
    const { workflowId } = await service.start(CALLER, { policyModule: 'm', workflow: 'flow', context: {} });
    // The run that would have begun the wait: appended here as a worker would have.
    await store.workflows.append('acme', workflowId, [{ sequence: 2, eventType: 'SIGNAL_AWAITED', payload: { step: 'review', signal: 'approval', timeoutAt: null }, occurredAt: new Date().toISOString() }]);
    const view = await service.signal(CALLER, workflowId, { signal: 'approval', approved: true });
    expect(view.status).toBe('RUNNING');
    const events = await store.workflows.events('acme', workflowId, 0, 10);
    expect(events.filter((e) => e.eventType === 'SIGNAL_RECEIVED')).toHaveLength(1);
    expect(notQueued).toEqual([workflowId, workflowId]);
  });
});

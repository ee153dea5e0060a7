import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { StoredWorkflowEvent } from '../workflow-events.js';
import { replay } from '../workflow-replay.js';
import { createWorkflowResumer } from '../workflow-resumer.js';
import type { WorkflowEvent } from '../workflow-store.js';
import { summaryOf } from '../workflow-summary.js';

const DEFINITION: WorkflowSignature = {
  name: 'flow',
  params: [],
  steps: [
    { name: 'check', kind: 'rule', rule: 'ok', args: [], compensate: null },
    { name: 'review', kind: 'await', signal: 'approval', withinMinutes: 60 },
  ],
};

const NOW = Date.parse('2026-05-01T12:00:00.000Z');
const GRACE_MS = 60_000;
const at = (msBeforeNow: number) => new Date(NOW - msBeforeNow).toISOString();

type Entry = [eventType: string, payload?: Record<string, unknown>];

/** A log whose last event is `stillForMs` old. */
function log(stillForMs: number, ...entries: Entry[]): StoredWorkflowEvent[] {
  return entries.map(([eventType, payload = {}], i) => ({ sequence: i + 1, eventType, payload, occurredAt: at(stillForMs + (entries.length - 1 - i) * 1000) }));
}

const awaited = (timeoutAt: string | null): Entry[] => [['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'check', result: true }], ['SIGNAL_AWAITED', { step: 'review', signal: 'approval', timeoutAt }]];

describe('workflow resumer', () => {
  let store: SqliteStore;
  let calls: unknown[][];

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    calls = [];
  });
  afterEach(() => store.close());

  const resumer = (pageSize?: number) =>
    createWorkflowResumer({
      workflows: store.workflows,
      resume: async (...args) => void calls.push(['resume', ...args]),
      scheduleTimeout: async (...args) => void calls.push(['scheduleTimeout', ...args]),
      graceMs: GRACE_MS,
      ...(pageSize === undefined ? {} : { pageSize }),
      now: () => new Date(NOW),
    });

  /** A workflow whose log holds `events`, its summary written by their writers up to `summarised` of them (default: all but an ended log's). */
  async function stage(workflowId: string, events: StoredWorkflowEvent[], tenantId = 'acme', summarised?: number): Promise<void> {
    await store.workflows.create(tenantId, { workflowId, policyModule: 'm', version: 1, workflow: 'flow', context: {}, actorId: 'alice', startedAt: at(3_600_000) });
    // Payloads cut to what replay and the sweep read: the store keeps any entry.
    if (events.length > 0) await store.workflows.append(tenantId, workflowId, events as WorkflowEvent[]);
    const upTo = summarised ?? events.length;
    const state = replay(DEFINITION, events.slice(0, upTo));
    // An ended log's summary comes with its finished mark, which these workflows are staged without.
    if (upTo > 0 && state.endedAt === null) await store.workflows.saveSummary(tenantId, workflowId, summaryOf(state));
  }

  const listed = async (tenantId = 'acme') =>
    Object.fromEntries((await store.workflows.list(tenantId, { offset: 0, limit: 100 })).items.map((w) => [w.workflowId, [w.status, w.currentStep, w.finalResult, w.finishedAt]]));

  it('acts on each log as replay sees it, once it has been still for the grace period', async () => {
    const cases: Array<[id: string, events: StoredWorkflowEvent[], status: string | null, expected: unknown[][]]> = [
      ['ended', log(0, ['WORKFLOW_STARTED'], ['WORKFLOW_COMPLETED', { finalResult: true }]), 'COMPLETED', []],
      ['running-fresh', log(GRACE_MS - 1, ['WORKFLOW_STARTED']), 'RUNNING', []],
      ['running-still', log(GRACE_MS, ['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'check', result: true }]), 'RUNNING', [['resume', 'acme', 'running-still']]],
      ['cancel-requested', log(GRACE_MS, ...awaited(null), ['WORKFLOW_CANCEL_REQUESTED', { by: 'bob' }]), 'RUNNING', [['resume', 'acme', 'cancel-requested']]],
      ['signalled', log(GRACE_MS, ...awaited(at(-1000)), ['SIGNAL_RECEIVED', { step: 'review', approved: true }]), 'RUNNING', [['resume', 'acme', 'signalled']]],
      ['awaits-signal', log(GRACE_MS * 10, ...awaited(null)), 'WAITING', []],
      ['limit-ahead', log(GRACE_MS, ...awaited(at(-5000))), 'WAITING', [['scheduleTimeout', 'acme', 'limit-ahead', 'review', 5000]]],
      ['limit-just-passed', log(GRACE_MS * 2, ...awaited(at(GRACE_MS - 1))), 'WAITING', [['scheduleTimeout', 'acme', 'limit-just-passed', 'review', 0]]],
      ['limit-overdue', log(GRACE_MS * 2, ...awaited(at(GRACE_MS))), 'WAITING', [['resume', 'acme', 'limit-overdue', 'review']]],
      ['never-started', [], null, []],
    ];
    for (const [id, events, status] of cases) {
      await stage(id, events);
      // The resumer reads only the last event; replay reads all of it: they agree on every case.
      if (status !== null) expect(replay(DEFINITION, events).status, id).toBe(status);
    }
    // A start that failed a moment ago, before its first event: it may still be on its way.
    await store.workflows.create('acme', { workflowId: 'starting', policyModule: 'm', version: 1, workflow: 'flow', context: {}, actorId: 'alice', startedAt: at(GRACE_MS - 1) });
    const sweep = await resumer().sweep(null);
    expect(sweep).toEqual({ next: null, read: cases.length + 1, resumed: 4, timeLimits: 2, finished: 2 });
    expect(calls.sort()).toEqual(cases.flatMap(([, , , expected]) => expected).sort());
    // The ended log and the start that failed long ago are marked now, and no longer read.
    const unfinished = (await store.workflows.listUnfinished(null, 100)).map((w) => w.workflowId);
    expect(unfinished).not.toContain('ended');
    expect(unfinished).not.toContain('never-started');
    expect(unfinished).toContain('starting');
  });

  it('has a run store a summary left behind its still log, and marks an ended log finished with its summary', async () => {
    const cases: Array<[id: string, events: StoredWorkflowEvent[], summarised: number, expected: unknown[][]]> = [
      // Its writer stopped after the append of SIGNAL_AWAITED, before the summary.
      ['waits-unsummarised', log(GRACE_MS, ...awaited(null)), 2, [['resume', 'acme', 'waits-unsummarised']]],
      ['limit-ahead-unsummarised', log(GRACE_MS, ...awaited(at(-5000))), 2, [['scheduleTimeout', 'acme', 'limit-ahead-unsummarised', 'review', 5000], ['resume', 'acme', 'limit-ahead-unsummarised']]],
      // A fresh log may still have its summary on the way.
      ['waits-fresh', log(GRACE_MS - 1, ...awaited(null)), 2, []],
      ['waits-summarised', log(GRACE_MS, ...awaited(null)), 3, []],
      ['ended-unsummarised', log(0, ['WORKFLOW_STARTED'], ['WORKFLOW_COMPLETED', { finalResult: true }]), 1, []],
      ['cancelled-unsummarised', log(0, ['WORKFLOW_STARTED'], ['WORKFLOW_CANCEL_REQUESTED', { by: 'bob' }], ['WORKFLOW_CANCELLED']), 2, []],
    ];
    for (const [id, events, summarised] of cases) await stage(id, events, 'acme', summarised);
    const sweep = await resumer().sweep(null);
    expect(sweep).toEqual({ next: null, read: cases.length, resumed: 2, timeLimits: 1, finished: 2 });
    expect(calls.sort()).toEqual(cases.flatMap(([, , , expected]) => expected).sort());
    expect(await listed()).toMatchObject({
      'ended-unsummarised': ['COMPLETED', null, true, at(0)],
      'cancelled-unsummarised': ['CANCELLED', null, null, at(0)],
      'waits-summarised': ['WAITING', 'review', null, null],
      // Left for the run the sweep queued.
      'waits-unsummarised': ['RUNNING', 'review', null, null],
    });
  });

  it('announces an end it finds unmarked before marking it, and again should the mark be lost; a start that never began is no end', async () => {
    await stage('ended', log(0, ['WORKFLOW_STARTED'], ['WORKFLOW_FAILED', { failedStep: 'check', error: 'boom' }]));
    await store.workflows.create('acme', { workflowId: 'never', policyModule: 'm', version: 1, workflow: 'flow', context: {}, actorId: 'alice', startedAt: at(3_600_000) });
    const announced: unknown[][] = [];
    const announcing = (fail: boolean) =>
      createWorkflowResumer({
        workflows: store.workflows,
        resume: async () => {},
        scheduleTimeout: async () => {},
        async announceEnd(tenantId, record, ended) {
          announced.push([tenantId, record.workflowId, ended.sequence, ended.eventType]);
          if (fail) throw new Error('queue away');
        },
        graceMs: GRACE_MS,
        now: () => new Date(NOW),
      });
    // An announcement that fails leaves the log unmarked: the next sweep announces it again.
    await expect(announcing(true).sweep(null)).rejects.toThrow('queue away');
    expect((await store.workflows.listUnfinished(null, 10)).map((w) => w.workflowId)).toContain('ended');
    await announcing(false).sweep(null);
    expect(announced).toEqual([
      ['acme', 'ended', 2, 'WORKFLOW_FAILED'],
      ['acme', 'ended', 2, 'WORKFLOW_FAILED'],
    ]);
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([]);
  });

  it('reads one page per sweep and says where the next starts, across tenants', async () => {
    for (const [i, id] of ['a', 'b', 'c', 'd', 'e'].entries()) await stage(id, log(GRACE_MS, ['WORKFLOW_STARTED']), i % 2 === 0 ? 'acme' : 'globex');
    const pages = resumer(2);
    expect(await pages.sweep(null)).toMatchObject({ next: 'b', read: 2, resumed: 2 });
    expect(await pages.sweep('b')).toMatchObject({ next: 'd', read: 2, resumed: 2 });
    expect(await pages.sweep('d')).toMatchObject({ next: null, read: 1, resumed: 1 });
    expect(calls).toEqual([
      ['resume', 'acme', 'a'],
      ['resume', 'globex', 'b'],
      ['resume', 'acme', 'c'],
      ['resume', 'globex', 'd'],
      ['resume', 'acme', 'e'],
    ]);
  });
});

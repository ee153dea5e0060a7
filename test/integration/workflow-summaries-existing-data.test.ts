// Workflows stored before the store kept a summary beside each: SQLite's migration 15 and MongoDB's
// backfill at start-up derive it where one event tells (an ended log from its terminal event, a log
// ending with SIGNAL_AWAITED waits at its step); the others keep summary 0, which the resume sweep
// finds behind the log.
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, openMongoStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { describeWithMongo, mongoTarget } from '../support/index.js';

const STARTED = '2026-05-01T10:00:00.000Z';
const at = (i: number) => `2026-05-01T10:00:0${i}.000Z`;

type Entry = [eventType: string, payload?: Record<string, unknown>];
const LOGS: Record<string, Entry[]> = {
  approved: [['WORKFLOW_STARTED'], ['SIGNAL_RECEIVED', { step: 'review', approved: true }], ['WORKFLOW_COMPLETED', { finalResult: true }]],
  rejected: [['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'identity', result: false }], ['WORKFLOW_COMPLETED', { finalResult: false }]],
  failed: [['WORKFLOW_STARTED'], ['COMPENSATION_STARTED', { failedStep: 'credit', error: 'x' }], ['WORKFLOW_FAILED', { failedStep: 'credit', error: 'x' }]],
  cancelled: [['WORKFLOW_STARTED'], ['WORKFLOW_CANCEL_REQUESTED', { by: 'bob' }], ['COMPENSATION_STARTED', { failedStep: null, error: 'cancelled' }], ['WORKFLOW_CANCELLED']],
  running: [['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'identity', result: true }]],
  waiting: [['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'identity', result: true }], ['SIGNAL_AWAITED', { step: 'review', signal: 'go', timeoutAt: null }]],
  empty: [],
};

/** What the list shows of each, and the sequence each summary reflects as the sweep reads it. */
async function expectDerived(store: Store): Promise<void> {
  const { items } = await store.workflows.list('acme', { offset: 0, limit: 100 });
  expect(Object.fromEntries(items.map((w) => [w.workflowId, [w.status, w.currentStep, w.finalResult, w.finishedAt]]))).toEqual({
    approved: ['COMPLETED', null, true, at(2)],
    rejected: ['COMPLETED', null, false, at(2)],
    failed: ['FAILED', null, null, at(2)],
    cancelled: ['CANCELLED', null, null, at(3)],
    running: ['RUNNING', null, null, null],
    waiting: ['WAITING', 'review', null, null],
    empty: ['RUNNING', null, null, null],
  });
  expect((await store.workflows.list('acme', { status: 'WAITING', offset: 0, limit: 100 })).items.map((w) => w.workflowId)).toEqual(['waiting']);
  const unfinished = Object.fromEntries((await store.workflows.listUnfinished(null, 100)).map((w) => [w.workflowId, w.summarySeq]));
  // `running` is behind its log of two events: the sweep has a run store its summary.
  expect(unfinished).toEqual({ running: 0, waiting: 3, empty: 0 });
}

describe('SQLite: workflows stored before migration 15', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pe-wf-summaries-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('get the summary their terminal event or their wait tells, the others summary 0', async () => {
    const path = join(dir, 'policy-engine.sqlite');
    const db = new BetterSqlite3(path);
    migrate(db, MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.name === 'workflow-summaries')));
    const insertWorkflow = db.prepare(
      `INSERT INTO workflows (workflow_id, tenant_id, policy_module, version, workflow, context, actor_id, started_at)
       VALUES (?, 'acme', 'm', 1, 'flow', '{}', 'alice', ?)`,
    );
    const insertEvent = db.prepare('INSERT INTO workflow_events (tenant_id, workflow_id, sequence, event_type, payload, occurred_at) VALUES (\'acme\', ?, ?, ?, ?, ?)');
    const markFinished = db.prepare('UPDATE workflows SET finished_at = ? WHERE workflow_id = ?');
    for (const [id, entries] of Object.entries(LOGS)) {
      insertWorkflow.run(id, STARTED);
      entries.forEach(([type, payload = {}], i) => insertEvent.run(id, i + 1, type, JSON.stringify(payload), at(i)));
      if (['approved', 'rejected', 'failed', 'cancelled'].includes(id)) markFinished.run(at(entries.length - 1), id);
    }
    db.close();

    const store = await openSqliteStore(path);
    try {
      await expectDerived(store);
    } finally {
      await store.close();
    }
  });
});

describeWithMongo('MongoDB: workflow documents stored before summaries', (url) => {
  const target = mongoTarget(url);
  afterAll(() => target.dispose());

  it('get the summary their terminal event or their wait tells at the next start, the others summary 0', async () => {
    const first = await target.connectMongo();
    const { db } = first.raw;
    // As a process of the version before stored them: no summary fields; ended ones marked finished.
    for (const [id, entries] of Object.entries(LOGS)) {
      const ended = ['approved', 'rejected', 'failed', 'cancelled'].includes(id);
      await db.collection('workflows').insertOne({
        _id: id as never, tenantId: 'acme', policyModule: 'm', version: 1, workflow: 'flow', context: '{}', actorId: 'alice', startedAt: STARTED,
        finishedAt: ended ? at(entries.length - 1) : null,
      });
      for (const [i, [eventType, payload = {}]] of entries.entries()) {
        await db.collection('workflow_events').insertOne({
          _id: `acme:${id}:${i + 1}` as never, tenantId: 'acme', workflowId: id, sequence: i + 1, eventType, payload: JSON.stringify(payload), occurredAt: at(i),
        });
      }
    }
    // The backfill ran when this database was first opened: only the next start's sees them.
    await db.collection('workflow_usage').deleteOne({ _id: 'summaries-backfilled' as never });
    const next = await openMongoStore({ url, database: target.database });
    try {
      await expectDerived(next);
    } finally {
      await next.close();
    }
  });
});

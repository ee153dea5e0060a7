// Workflows stored before the store noted when a workflow finished: SQLite's migration derives it
// from each log's terminal event (and a later one counts them for the tenant's quotas); MongoDB
// documents without the field count as unfinished until the resume sweep reads their log and marks them.
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, openSqliteStore } from '../../src/store/index.js';
import { describeWithMongo, mongoTarget } from '../support/index.js';

const STARTED = '2026-05-01T10:00:00.000Z';

describe('SQLite: workflows stored before migration 6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pe-wf-finishes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are finished when their log ended, at the time of its terminal event, and unfinished otherwise', async () => {
    const path = join(dir, 'policy-engine.sqlite');
    const db = new BetterSqlite3(path);
    const finishes = MIGRATIONS.findIndex((m) => m.name === 'workflow-finishes');
    migrate(db, MIGRATIONS.slice(0, finishes));
    const logs: Record<string, string[]> = {
      completed: ['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED'],
      failed: ['WORKFLOW_STARTED', 'COMPENSATION_STARTED', 'WORKFLOW_FAILED'],
      cancelled: ['WORKFLOW_STARTED', 'WORKFLOW_CANCEL_REQUESTED', 'COMPENSATION_STARTED', 'WORKFLOW_CANCELLED'],
      running: ['WORKFLOW_STARTED', 'POLICY_EVALUATED'],
      waiting: ['WORKFLOW_STARTED', 'SIGNAL_AWAITED'],
      empty: [],
    };
    const insertWorkflow = db.prepare(
      `INSERT INTO workflows (workflow_id, tenant_id, policy_module, version, workflow, context, actor_id, started_at)
       VALUES (?, 'acme', 'm', 1, 'flow', '{}', 'alice', ?)`,
    );
    const insertEvent = db.prepare(
      `INSERT INTO workflow_events (tenant_id, workflow_id, sequence, event_type, payload, occurred_at) VALUES ('acme', ?, ?, ?, '{}', ?)`,
    );
    for (const [id, types] of Object.entries(logs)) {
      insertWorkflow.run(id, STARTED);
      types.forEach((type, i) => insertEvent.run(id, i + 1, type, `2026-05-01T10:00:0${i}.000Z`));
    }
    db.close();

    const store = await openSqliteStore(path);
    try {
      const finishedAt = Object.fromEntries(
        store.raw.prepare<[], { workflow_id: string; finished_at: string | null }>('SELECT workflow_id, finished_at FROM workflows').all().map((r) => [r.workflow_id, r.finished_at]),
      );
      expect(finishedAt).toEqual({
        completed: '2026-05-01T10:00:02.000Z',
        failed: '2026-05-01T10:00:02.000Z',
        cancelled: '2026-05-01T10:00:03.000Z',
        running: null,
        waiting: null,
        empty: null,
      });
      expect((await store.workflows.listUnfinished(null, 10)).map((w) => w.workflowId)).toEqual(['empty', 'running', 'waiting']);
      // Migration 10 counts them for the tenant's quotas: six `{}` contexts and fourteen `{}` payloads.
      expect(await store.workflows.usage('acme')).toEqual({ unfinished: 3, storedBytes: 40 });
    } finally {
      await store.close();
    }
  });
});

describeWithMongo('MongoDB: workflow documents without finishedAt', (url) => {
  const target = mongoTarget(url);
  afterAll(() => target.dispose());

  it('count as unfinished until marked', async () => {
    const store = await target.connectMongo();
    await store.raw.db.collection('workflows').insertOne({
      _id: 'stored-before' as never,
      tenantId: 'acme',
      policyModule: 'm',
      version: 1,
      workflow: 'flow',
      context: '{}',
      actorId: 'alice',
      startedAt: STARTED,
    });
    // Without a summary too: the resume sweep finds it behind the log (summary 0).
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([{ tenantId: 'acme', workflowId: 'stored-before', summarySeq: 0 }]);
    await store.workflows.markFinished('acme', 'stored-before', '2026-05-01T10:00:02.000Z');
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([]);
    expect(await store.raw.db.collection('workflows').findOne({ _id: 'stored-before' as never })).toMatchObject({ finishedAt: '2026-05-01T10:00:02.000Z' });
    // It was never counted as started, so its finish does not count against later ones.
    expect(await store.workflows.usage('acme')).toEqual({ unfinished: 0, storedBytes: 0 });
  });
});

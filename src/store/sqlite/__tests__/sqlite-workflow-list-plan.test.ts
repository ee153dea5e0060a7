// The workflow list reads one tenant's index range in its order: SQLite's query plans for every
// filter the list takes, on a store holding other tenants' workflows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowListQuery } from '../../../workflows/workflow-store.js';
import { openSqliteStore, type SqliteStore } from '../index.js';
import { workflowListSql } from '../sqlite-workflow-repository.js';

const FILTERS: Array<[label: string, filter: Partial<WorkflowListQuery>, index: string]> = [
  ['none', {}, 'workflows_by_start'],
  ['status', { status: 'WAITING' }, 'workflows_by_status_start'],
  ['status and dates', { status: 'COMPLETED', startedFrom: '2026-05-01T00:00:00.000Z', startedBefore: '2026-05-02T00:00:00.000Z' }, 'workflows_by_status_start'],
  ['module', { policyModule: 'lending.origination' }, 'workflows_by_start'],
  ['workflow and dates', { workflow: 'originateLoan', startedFrom: '2026-05-01T00:00:00.000Z' }, 'workflows_by_start'],
  ['every filter', { status: 'RUNNING', policyModule: 'm', workflow: 'w', startedBefore: '2026-05-02T00:00:00.000Z' }, 'workflows_by_status_start'],
];

describe('SQLite: the workflow list’s query plans', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
    for (let i = 0; i < 200; i += 1) {
      const tenant = i % 10 === 0 ? 'small' : 'large';
      await store.workflows.create(tenant, {
        workflowId: `wf-${i}`, policyModule: i % 3 === 0 ? 'm' : 'lending.origination', version: 1, workflow: i % 2 === 0 ? 'w' : 'originateLoan',
        context: {}, actorId: 'alice', startedAt: new Date(Date.UTC(2026, 4, 1) + i * 60_000).toISOString(),
      });
    }
  });
  afterAll(() => store.close());

  const plan = (sql: string, values: unknown[]) =>
    store.raw.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(...values).map((row) => row.detail).join('\n');

  for (const [label, filter, index] of FILTERS) {
    it(`pages and counts from ${index} with filter: ${label}`, () => {
      const { pageSql, countSql, values } = workflowListSql('small', { offset: 0, limit: 20, ...filter });
      const page = plan(pageSql, [...values, 20, 0]);
      expect(page).toContain(`SEARCH workflows USING INDEX ${index} (tenant_id=?`);
      // Rows come in the index's order: no sort of the tenant's workflows.
      expect(page).not.toMatch(/TEMP B-TREE/);
      const count = plan(countSql, values);
      expect(count).toContain(`SEARCH workflows USING COVERING INDEX ${index} (tenant_id=?`);
      expect(count).not.toMatch(/SCAN/);
    });
  }
});

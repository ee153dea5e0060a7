import { describe, expect, it } from 'vitest';
import { createAuditTrail, type AuditRecorder } from '../../audit/index.js';
import { openSqliteStore } from '../../store/index.js';
import { createServiceMetrics } from '../service-metrics.js';
import { observedAuditRecorder } from '../observed-audit-recorder.js';
import { observedWorkflowRepository } from '../observed-workflow-repository.js';

const value = async (metrics: ReturnType<typeof createServiceMetrics>, name: string, labels: Record<string, string>) =>
  (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;

describe('observed stores', () => {
  it('count anomalies by type and the status reached, and evaluations by outcome and code, from what the chain stores', async () => {
    const store = await openSqliteStore(':memory:');
    const metrics = createServiceMetrics();
    const trail = createAuditTrail(store.auditLinks);
    const recorder: AuditRecorder = observedAuditRecorder(trail.recorder, metrics);
    const anomaly = { policyModule: 'm', policyFunction: 'f', actorId: 'system' };
    await recorder.append('acme', { ...anomaly, eventType: 'ANOMALY_DETECTED', payload: { type: 'HIGH_FAILURE_RATE' } });
    await recorder.append('acme', { ...anomaly, eventType: 'ANOMALY_STATUS_CHANGED', payload: { type: 'HIGH_FAILURE_RATE', from: 'OPEN', to: 'RESOLVED' } });
    await recorder.append('acme', { ...anomaly, eventType: 'POLICY_EVALUATED', payload: { success: false, error: 'PL3004 no coverage at 3:5' } });
    await recorder.append('acme', { ...anomaly, eventType: 'POLICY_EVALUATED', payload: { success: true } });
    expect(await value(metrics, 'policy_engine_anomalies_total', { type: 'HIGH_FAILURE_RATE', status: 'OPEN' })).toBe(1);
    expect(await value(metrics, 'policy_engine_anomalies_total', { type: 'HIGH_FAILURE_RATE', status: 'RESOLVED' })).toBe(1);
    expect(await value(metrics, 'policy_engine_evaluations_total', { kind: 'stored', outcome: 'error', code: 'PL3004' })).toBe(1);
    expect(await value(metrics, 'policy_engine_evaluations_total', { kind: 'stored', outcome: 'ok', code: '' })).toBe(1);
    await trail.close();
    await store.close();
  });

  it('count only the workflow events an append stored', async () => {
    const store = await openSqliteStore(':memory:');
    const metrics = createServiceMetrics();
    const workflows = observedWorkflowRepository(store.workflows, metrics);
    const record = { workflowId: 'w-1', policyModule: 'm', workflow: 'flow', version: 1, context: {}, actorId: 'bob', startedAt: new Date().toISOString() };
    expect(await workflows.create('acme', record)).toBe(true);
    const at = new Date().toISOString();
    await workflows.append('acme', 'w-1', [{ sequence: 1, eventType: 'WORKFLOW_STARTED', payload: {}, occurredAt: at }]);
    // A writer that lost the race for sequence 1 stores nothing and counts nothing.
    await workflows.append('acme', 'w-1', [{ sequence: 1, eventType: 'WORKFLOW_STARTED', payload: {}, occurredAt: at }]);
    await workflows.append('acme', 'w-1', [{ sequence: 2, eventType: 'WORKFLOW_COMPLETED', payload: { finalResult: true }, occurredAt: at }]);
    expect(await value(metrics, 'policy_engine_workflow_events_total', { event_type: 'WORKFLOW_STARTED' })).toBe(1);
    expect(await value(metrics, 'policy_engine_workflow_events_total', { event_type: 'WORKFLOW_COMPLETED' })).toBe(1);
    await store.close();
  });
});

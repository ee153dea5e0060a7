// Prometheus metrics of the built service: GET /metrics on the API, METRICS_PORT on a worker.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

/** The value of one sample line of the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics', () => {
  let dataDir: string;
  let env: Record<string, string>;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-metrics-'));
    env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0' };
  });
  afterAll(async () => {
    for (const service of running) {
      if (service.child.exitCode === null) service.child.kill('SIGTERM');
      await service.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('counts requests by route template and status, evaluations by outcome and code, and reports queues, threads and audit lag', async () => {
    const service = runService([], env);
    running.push(service);
    const port = (await service.waitForLog('api listening')).port as number;
    const base = `http://127.0.0.1:${port}`;
    const lines: string[] = [];
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'MEMBER'], { env, out: (l) => lines.push(l), err: () => {} })).toBe(0);
    const headers = { authorization: `Bearer ${lines[0]}`, 'x-tenant-id': 'acme', 'content-type': 'application/json' };
    const evaluate = (source: string) =>
      fetch(`${base}/api/v1/policies/evaluate-source`, { method: 'POST', headers, body: JSON.stringify({ source, functionName: 'f', context: { x: 2 } }) });
    expect((await evaluate('Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n')).status).toBe(200);
    expect((await evaluate('Module m.\nRule f given x as Int, produce Int:\n  Return x / 0.\n')).status).toBe(200);
    expect((await fetch(`${base}/api/v1/policies/p-1`, { headers })).status).toBe(404);

    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(sample(text, 'policy_engine_http_request_duration_seconds_count', { route: '/api/v1/policies/evaluate-source', status: '200', method: 'POST' })).toBe(2);
    expect(sample(text, 'policy_engine_http_request_duration_seconds_count', { route: '/api/v1/policies/:id', status: '404' })).toBe(1);
    expect(sample(text, 'policy_engine_evaluations_total', { kind: 'source', outcome: 'ok', code: '' })).toBe(1);
    expect(sample(text, 'policy_engine_evaluations_total', { kind: 'source', outcome: 'error', code: 'PL2006' })).toBe(1);
    expect(sample(text, 'policy_engine_audit_records_total', { event_type: 'SOURCE_EVALUATED' })).toBe(2);
    expect(sample(text, 'policy_engine_audit_append_lag_seconds_count', { role: 'all' })).toBe(2);
    for (const queue of ['policy-evaluate', 'anomaly-detect', 'anomaly-verify', 'workflow-run', 'webhook-deliver']) {
      expect(sample(text, 'policy_engine_queue_jobs', { queue, state: 'waiting' }), queue).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'policy_engine_queue_jobs_finished_total', { queue: 'policy-evaluate', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'policy_engine_queue_job_wait_seconds_count', { queue: 'policy-evaluate' })).toBeGreaterThanOrEqual(1);
    const utilization = sample(text, 'policy_engine_engine_thread_utilization', { role: 'all' });
    expect(utilization).toBeGreaterThanOrEqual(0);
    expect(utilization).toBeLessThanOrEqual(1);
    expect(text).toContain('policy_engine_process_resident_memory_bytes');

    // Every series the sample dashboard queries exists (anomaly and workflow counters once they count).
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const queried = new Set(dashboard.match(/policy_engine_[a-z0-9_]+/g));
    const latent = ['policy_engine_anomalies_total', 'policy_engine_workflow_events_total'];
    for (const name of queried) {
      if (latent.includes(name)) expect(text, name).toContain(`# TYPE ${name} counter`);
      else expect(text, name).toMatch(new RegExp(`^${name}[{ ]`, 'm'));
    }
  });

  it('a worker process serves its own metrics on METRICS_PORT', async () => {
    const worker = runService(['--role', 'worker'], { ...env, METRICS_PORT: '0' });
    running.push(worker);
    const port = (await worker.waitForLog('metrics listening')).port as number;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toContain('policy_engine_engine_thread_utilization{role="worker"}');
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });
});

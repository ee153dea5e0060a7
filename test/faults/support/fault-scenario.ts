// One fault scenario end to end: a fresh cluster, the policies the load needs, the mixed load, the
// scenario's faults while it runs, then every workflow driven to its end and the findings collected.
import { randomUUID } from 'node:crypto';
import type { StoredAnomaly } from '../../../src/anomalies/index.js';
import { createJwtKeyRing, createTokenSigner } from '../../../src/auth/index.js';
import type { MongoStore } from '../../../src/store/index.js';
import type { OwnRedis } from './own-redis.js';
import { collectFindings, type ScenarioFindings } from './cluster-findings.js';
import { FAULT_TENANT, JWT_KID, JWT_SECRET, OWN_REDIS, startFaultCluster, type FaultCluster, type RedisChoice } from './fault-cluster.js';
import { ATTEMPT_TIMEOUT_MS, DEPLOYED_SOURCE, WORKFLOW_SOURCE, startMixedLoad, type Ledger } from './mixed-load.js';

export interface ScenarioResult {
  name: string;
  ledger: Ledger;
  findings: ScenarioFindings;
  troubles: string[];
}

const ANOMALIES = 4;
const CLIENTS = 6;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function seededAnomaly(index: number): StoredAnomaly {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    type: 'HIGH_FAILURE_RATE',
    policyModule: `fault.anomaly${index}`,
    policyFunction: 'f',
    version: 1,
    occurrence: 1,
    detectedAt: now,
    observation: { observedAt: now, severity: 'HIGH', summary: 'seeded for the fault suite', metrics: { failureRate: 0.5 }, recommendedActions: [] },
    verification: null,
  };
}

async function call<R>(cluster: FaultCluster<R>, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${cluster.apiBases()[0]}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': FAULT_TENANT, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
  });
  return { status: response.status, body: await response.json() };
}

/** Signals every workflow that waits for approval and waits until all have ended (or the deadline). */
async function finishWorkflows<R>(cluster: FaultCluster<R>, store: MongoStore, token: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  const ids = await store.raw.db.collection<{ _id: string }>('workflows').find({ tenantId: FAULT_TENANT }).map((doc) => doc._id).toArray();
  const open = new Set<string>();
  // A record without events is a start that failed: there is nothing to finish.
  for (const id of ids) if ((await store.workflows.events(FAULT_TENANT, id, 0, 1)).length > 0) open.add(id);
  while (open.size > 0 && Date.now() < deadline) {
    for (const id of [...open]) {
      const state = await call(cluster, token, 'GET', `/api/v1/workflows/${id}`).catch(() => null);
      const { status, currentStep } = (state?.body ?? {}) as { status?: string; currentStep?: string };
      if (status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED') open.delete(id);
      else if (status === 'WAITING' && currentStep === 'review') {
        await call(cluster, token, 'POST', `/api/v1/workflows/${id}/signals`, { signal: 'approval', approved: true }).catch(() => null);
      }
    }
    if (open.size > 0) await pause(500);
  }
}

/**
 * Waits until no deploy, rollback or anomaly change owes its audit record any more: a change stored
 * while its record failed is answered (or replayed to its key) at once, and its record follows from
 * the audit outbox follower once the writer's claim ended. Whatever is still owed after the deadline
 * shows up in the findings as a change not in the chain.
 */
async function writtenOwedRecords(store: MongoStore): Promise<void> {
  const everyClaim = '9999-12-31T23:59:59.999Z';
  const deadline = Date.now() + 75_000;
  while (Date.now() < deadline) {
    const [anomalies, registry] = await Promise.all([store.anomalies.owedAudits(everyClaim, 1), store.policies.owedAudits(everyClaim, 1)]);
    if (anomalies.length === 0 && registry.length === 0) return;
    await pause(500);
  }
}

export async function runFaultScenario<R = OwnRedis>(
  name: string,
  faults: (cluster: FaultCluster<R>) => Promise<void>,
  redis: RedisChoice<R> = OWN_REDIS as unknown as RedisChoice<R>,
): Promise<ScenarioResult> {
  const anomalies = Array.from({ length: ANOMALIES }, (_, index) => seededAnomaly(index));
  const cluster = await startFaultCluster({
    redis,
    seed: async (store) => {
      for (const anomaly of anomalies) await store.anomalies.insert(FAULT_TENANT, anomaly);
    },
  });
  try {
    const signer = createTokenSigner(createJwtKeyRing([{ kid: JWT_KID, secret: JWT_SECRET }], 'fault suite'));
    const admin = await signer.sign({ subject: 'fault-admin', tenantId: FAULT_TENANT, roles: ['ADMIN'], ttlSeconds: 3600 });
    for (const source of [DEPLOYED_SOURCE, WORKFLOW_SOURCE]) {
      const deployed = await call(cluster, admin, 'POST', '/api/v1/policies', { source, locale: 'en-US' });
      if (deployed.status !== 201) throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
    }
    const load = startMixedLoad(cluster, { clients: CLIENTS, anomalyIds: anomalies.map((a) => a.id), adminToken: admin });
    await pause(3000);
    await faults(cluster);
    await pause(3000);
    await load.stop();
    const store = await cluster.openStore();
    await finishWorkflows(cluster, store, admin);
    await writtenOwedRecords(store);
    const findings = await collectFindings(cluster, store, load.ledger);
    return { name, ledger: load.ledger, findings, troubles: cluster.troubles() };
  } finally {
    await cluster.close();
  }
}

/** The table of docs/deployment.md (When parts fail): one row per scenario. */
export function findingsTable(results: readonly ScenarioResult[]): string {
  const rows = results.map(({ name, ledger, findings }) => {
    const errors = new Map<string, number>();
    for (const attempt of ledger.attempts) {
      if (typeof attempt.outcome === 'number' && attempt.outcome < 400) continue;
      const key = `${attempt.outcome}${attempt.code ? ` ${attempt.code}` : ''}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
    const answered = ledger.attempts.filter((a) => typeof a.outcome === 'number').length;
    const errorText = [...errors].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key}: ${n}`).join('; ') || 'none';
    const wf = findings.workflows;
    return `| ${name} | ${ledger.attempts.length} | ${answered} | ${errorText} | ${findings.answeredEvaluations + findings.graphql.answered} answered, ${findings.auditedEvaluations} audited (${findings.missing.length} missing, ${findings.auditedWithoutAnswer} without answer${findings.unlinked > 0 ? `, ${findings.unlinked} never linked` : ''}) | ${findings.duplicates.length} | ${findings.chainValid ? 'yes' : 'NO'} | ${wf.completed}/${wf.total}${wf.neverStarted > 0 ? ` (+${wf.neverStarted} starts failed before their first event)` : ''} | ${findings.anomalies.answered}/${findings.anomalies.changes}, ${findings.anomalies.problems.length} problems |`;
  });
  return [
    '| scenario | requests sent | answered | non-2xx and network errors, by code | evaluations | duplicates | chain valid | workflows finished | anomaly changes once per key |',
    '|---|---:|---:|---|---|---:|---|---|---|',
    ...rows,
  ].join('\n');
}

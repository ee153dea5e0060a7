// What a fault scenario left behind, read from the store after the load, once the tenant's stored
// audit records are linked: the chain against the ledger (each answered evaluation audited exactly
// once), the offline verifier's verdict, the workflows (all finished, gapless) and the anomaly
// changes (once per Idempotency-Key).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { MongoStore } from '../../../src/store/index.js';
import { MAIN, untilLinked } from '../../support/index.js';
import { FAULT_TENANT, type FaultCluster } from './fault-cluster.js';
import type { Ledger } from './mixed-load.js';

export interface ScenarioFindings {
  /** Evaluation tags answered 200. */
  answeredEvaluations: number;
  /** Evaluation records of the load in the chain (tagged ones and GraphQL decisions). */
  auditedEvaluations: number;
  /** Answered 200 but not in the chain. */
  missing: string[];
  /** In the chain more than once. */
  duplicates: string[];
  /** In the chain although the client never saw its 200 (the answer was lost with a process). */
  auditedWithoutAnswer: number;
  /** GraphQL decisions answered vs recorded (no tags: the count must lie between answered and sent). */
  graphql: { answered: number; audited: number; sent: number };
  /** Records of the tenant still stored but not linked when the findings were collected. */
  unlinked: number;
  chainValid: boolean;
  chainReport: string;
  /** `neverStarted`: records whose start failed before their first event (not workflows to anyone). */
  workflows: { total: number; completed: number; neverStarted: number; problems: string[] };
  anomalies: { changes: number; answered: number; problems: string[] };
}

const SCRIPT = join(MAIN, '..', '..', 'scripts', 'audit-verify.js');

/** The offline verifier, as an operator runs it: its exit code and its report. */
async function verifyOffline(cluster: FaultCluster<unknown>): Promise<{ valid: boolean; report: string }> {
  const child = spawn(process.execPath, [SCRIPT, '--tenant', FAULT_TENANT], { env: { PATH: process.env.PATH ?? '', ...cluster.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { valid: code === 0, report: output.trim() };
}

/**
 * Answered records are linked soon after they are stored: at once by a live holder of the tenant's
 * lease, or after a dead holder's lease (AUDIT_LINK_LEASE_SECONDS, 10 s) by the next sweep of
 * another process. The findings are read once none waits, or after this long.
 */
const LINKED_WAIT_MS = 60_000;

export async function collectFindings(cluster: FaultCluster<unknown>, store: MongoStore, ledger: Ledger): Promise<ScenarioFindings> {
  const unlinked = await untilLinked(async () => (await store.auditLinks.unlinkedSummary(FAULT_TENANT)).count, LINKED_WAIT_MS);
  const counts = new Map<string, number>();
  let signedDecisions = 0;
  const notes = new Map<string, number>();
  for await (const record of store.audit.scan(FAULT_TENANT, 1, 1000)) {
    if (record.eventType === 'SOURCE_EVALUATED' && record.policyModule?.startsWith('fault.')) {
      counts.set(record.policyModule, (counts.get(record.policyModule) ?? 0) + 1);
    } else if (record.eventType === 'POLICY_EVALUATED' && /^d\d+$/.test(record.actorId)) {
      counts.set(record.actorId, (counts.get(record.actorId) ?? 0) + 1);
    } else if (record.eventType === 'POLICY_EVALUATED' && record.actorId === `signed:${FAULT_TENANT}`) {
      signedDecisions += 1;
    } else if (record.eventType === 'ANOMALY_STATUS_CHANGED') {
      const note = (record.payload as { note?: unknown }).note;
      if (typeof note === 'string') notes.set(note, (notes.get(note) ?? 0) + 1);
    }
  }

  const answered = new Set(ledger.attempts.filter((a) => a.outcome === 200).flatMap((a) => a.tags));
  const missing = [...answered].filter((tag) => !counts.has(tag));
  const duplicates = [...counts].filter(([, n]) => n > 1).map(([tag]) => tag);
  const auditedWithoutAnswer = [...counts.keys()].filter((tag) => !answered.has(tag)).length;
  const graphqlSent = ledger.attempts.filter((a) => a.kind === 'graphql').length;

  const verdict = await verifyOffline(cluster);

  const workflowProblems: string[] = [];
  let completed = 0;
  const ids = await store.raw.db.collection<{ _id: string }>('workflows').find({ tenantId: FAULT_TENANT }).map((doc) => doc._id).toArray();
  let neverStarted = 0;
  for (const id of ids) {
    const events = await store.workflows.events(FAULT_TENANT, id, 0, 10_000);
    // A start that failed before its first event was stored: its client got an error, not an id.
    if (events.length === 0) {
      neverStarted += 1;
      continue;
    }
    const gap = events.findIndex((event, index) => event.sequence !== index + 1);
    if (gap !== -1) workflowProblems.push(`${id}: sequence ${events[gap]!.sequence} at position ${gap + 1}`);
    const types = events.map((event) => event.eventType);
    if (types.filter((type) => type === 'WORKFLOW_STARTED').length !== 1) workflowProblems.push(`${id}: ${types.join(',')}`);
    if (types.at(-1) === 'WORKFLOW_COMPLETED' && types.filter((type) => type === 'WORKFLOW_COMPLETED').length === 1) completed += 1;
    else workflowProblems.push(`${id} did not finish once: ${types.join(',')}`);
  }

  const anomalyProblems: string[] = [];
  for (const change of ledger.anomalyChanges) {
    const seen = notes.get(change.note) ?? 0;
    if (seen > 1) anomalyProblems.push(`${change.note} applied ${seen} times`);
    if (change.status === 200 && seen !== 1) anomalyProblems.push(`${change.note} answered 200 but applied ${seen} times`);
  }

  return {
    answeredEvaluations: answered.size,
    auditedEvaluations: [...counts.values()].reduce((sum, n) => sum + n, 0) + signedDecisions,
    missing,
    duplicates,
    auditedWithoutAnswer,
    graphql: { answered: ledger.graphqlDecided, audited: signedDecisions, sent: graphqlSent },
    unlinked,
    chainValid: verdict.valid,
    chainReport: verdict.report,
    workflows: { total: ids.length - neverStarted, completed, neverStarted, problems: workflowProblems },
    anomalies: { changes: ledger.anomalyChanges.length, answered: ledger.anomalyChanges.filter((c) => c.status === 200).length, problems: anomalyProblems },
  };
}

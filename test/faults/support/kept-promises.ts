// What every fault scenario must keep, however its faults went: an answer or a clear error in time
// for every request, every answered evaluation in the chain exactly once, a valid chain, every
// workflow finished, each anomaly change once per key.
import { expect } from 'vitest';
import { findingsTable, type ScenarioResult } from './fault-scenario.js';

export function expectKeptPromises(result: ScenarioResult, options: { everyAuditedAnswered: boolean }): void {
  const { ledger, findings } = result;
  const context = `${result.name}\n${findingsTable([result])}\n${result.troubles.filter((line) => !line.includes('stderr: policy engine')).slice(0, 20).join('\n')}`;
  expect(ledger.attempts.filter((a) => a.outcome === 'timeout'), `hangs: ${context}`).toEqual([]);
  expect(ledger.attempts.filter((a) => a.outcome === 500).map((a) => `${a.kind} ${a.code}`), `500s: ${context}`).toEqual([]);
  expect(ledger.gaveUp, `requests without a definitive answer: ${context}`).toEqual([]);
  expect(findings.answeredEvaluations, context).toBeGreaterThan(50);
  expect(findings.unlinked, `stored but never linked: ${context}`).toBe(0);
  expect(findings.missing, `answered but not audited: ${context}`).toEqual([]);
  expect(findings.duplicates, `audited twice: ${context}`).toEqual([]);
  expect(findings.graphql.audited, context).toBeGreaterThanOrEqual(findings.graphql.answered);
  expect(findings.graphql.audited, context).toBeLessThanOrEqual(findings.graphql.sent);
  expect(findings.chainValid, `${findings.chainReport}\n${context}`).toBe(true);
  expect(findings.workflows.total, context).toBeGreaterThan(0);
  expect(findings.workflows.problems, context).toEqual([]);
  expect(findings.anomalies.changes, context).toBeGreaterThan(0);
  expect(findings.anomalies.problems, context).toEqual([]);
  if (options.everyAuditedAnswered) {
    expect(findings.auditedWithoutAnswer, `audited without an answer: ${context}`).toBe(0);
    expect(findings.graphql.audited, context).toBe(findings.graphql.answered);
  }
}

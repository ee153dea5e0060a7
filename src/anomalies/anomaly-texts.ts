import type { AnomalyDescription, Assessment, VersionEvidence } from './assessment.js';

const percent = (fraction: number) => `${Number((fraction * 100).toPrecision(3))}%`;
const millis = (ms: number) => `${Number(ms.toPrecision(3))} ms`;
const num = (value: unknown) => (typeof value === 'number' ? value : 0);

function rollback(policyModule: string, version: number): string {
  return `POST /api/v1/policies/${policyModule}/rollback {"version": ${version}}`;
}

function auditTrail(e: VersionEvidence): string {
  return `GET /api/v1/audit/policy/${e.policyModule}/${e.policyFunction}`;
}

/**
 * What to do about a version that misbehaves: roll back when it is the active one and an earlier
 * version exists; move pinned clients when it is not the active one.
 */
function versionRemedy(e: VersionEvidence, what: string): string {
  const active = e.standing.activeVersion;
  if (active !== null && active !== e.version) {
    return `Version ${e.version} is not the active one (version ${active} is): move the clients pinned to version ${e.version} to it by leaving out \`version\` in POST /api/v1/policies/evaluate`;
  }
  if (e.version > 1) return `Roll back ${e.policyModule} to version ${e.version - 1} while ${what}: ${rollback(e.policyModule, e.version - 1)}`;
  return `Fix ${e.policyFunction} and deploy ${e.policyModule} again (POST /api/v1/policies): version ${e.version} has no earlier version to roll back to`;
}

/** A one-line summary and specific next steps, written from the assessment's numbers. */
export function describeAnomaly(e: VersionEvidence, a: Assessment): AnomalyDescription {
  const versionId = `${e.policyModule}@${e.version}`;
  const m = a.metrics;
  const period = `between ${String(m.windowStart)} and ${String(m.windowEnd)}`;
  switch (a.type) {
    case 'HIGH_FAILURE_RATE':
      return {
        summary:
          `${versionId}: ${e.policyFunction} failed ${percent(num(m.failureRate))} of ${num(m.sampleSize)} evaluations ${period} ` +
          `(threshold ${percent(num(m.threshold))}, baseline ${percent(num(m.baselineFailureRate))} of ${num(m.baselineSampleSize)})`,
        recommendedActions: [
          `Read the errors of the failing evaluations: ${auditTrail(e)} lists POLICY_EVALUATED records with success false and versionId ${versionId}`,
          versionRemedy(e, 'the failures are investigated'),
          `Check whether callers send contexts the rule does not expect (types, missing fields): failures from PL5 codes are bad input, PL3 codes are the rule's own runtime errors`,
        ],
      };
    case 'ZOMBIE_VERSION': {
      const active = e.standing.activeVersion;
      const target = active === null ? 'a current version' : `version ${active}`;
      return {
        summary:
          `${versionId} was superseded at ${String(m.supersededSince)} but still received ${num(m.sampleSize)} evaluations ${period} ` +
          `(${percent(num(m.shareOfTraffic))} of ${e.policyFunction}'s traffic; active: ${active === null ? 'none' : `version ${active}`})`,
        recommendedActions: [
          `Find the clients still pinned to version ${e.version}: ${auditTrail(e)} lists their POLICY_EVALUATED records (actorId) with versionId ${versionId}`,
          `Move them to ${target}: leave out \`version\` in POST /api/v1/policies/evaluate to follow the active version`,
          `If version ${e.version} must keep serving them, make it active again: ${rollback(e.policyModule, e.version)}`,
        ],
      };
    }
    case 'PERFORMANCE_DEGRADATION':
      return {
        summary:
          `${versionId}: ${e.policyFunction} took ${millis(num(m.windowMeanMs))} on average over ${num(m.sampleSize)} evaluations ${period}, ` +
          `${num(m.ratio)}× its baseline of ${millis(num(m.baselineMeanMs))} over ${num(m.baselineSampleSize)} (one-sided Welch p = ${num(m.pValue)})`,
        recommendedActions: [
          `Compare the inputs: evaluation time grows with the lists and records a rule loops over; check whether callers started sending larger contexts`,
          `Trace a slow evaluation to see which decisions it takes: POST /api/v1/policies/evaluate?trace=true with one of those contexts`,
          versionRemedy(e, 'the slowdown is investigated'),
        ],
      };
  }
}

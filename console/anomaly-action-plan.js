// What an operator can do about an anomaly, in the console's words: derived from the anomaly's
// type, module, function and version and from the module's active version now (the API's advice
// is text written for API callers; its structure is not in the answer). Each step says why, and
// carries what the console can do about it: a rollback, a canary, a verification, or a page to open.
import { auditHref } from './audit-routes.js';
import { policyModuleHref } from './policy-routes.js';

/** The version number of `<module>@<version>`. */
export function versionNumberOf(versionId) {
  return Number(String(versionId).split('@').pop());
}

function auditRecordsOf(anomaly, version, outcome, label) {
  const href = auditHref({ type: 'POLICY_EVALUATED', module: anomaly.policyModule, function: anomaly.policyFunction, version, outcome });
  return { kind: 'link', href, label };
}

/** Roll back (or try a canary) when the version is the active one and an earlier one exists; otherwise what to do instead. */
function remedies(anomaly, version, activeVersion, what) {
  const versions = { kind: 'link', href: policyModuleHref(anomaly.policyModule), label: `Versions of ${anomaly.policyModule}` };
  if (activeVersion !== null && activeVersion !== version) {
    return [
      {
        text: `Version ${version} is not the active one (version ${activeVersion} is): it answers only clients that name version ${version}. Ask them to leave the version out, so they follow the active one.`,
        actions: [versions],
      },
    ];
  }
  if (version > 1) {
    const previous = version - 1;
    return [
      { text: `Roll back to version ${previous} while ${what}: it answers every evaluation that names no version.`, actions: [{ kind: 'rollback', version: previous, label: `Roll back to version ${previous}` }] },
      {
        text: `Or try version ${previous} on a share of the traffic first: a canary of its source, as a new version, that you promote or abort later.`,
        actions: [{ kind: 'canary', version: previous, label: `Start a canary of version ${previous}` }],
      },
    ];
  }
  return [{ text: `Fix ${anomaly.policyFunction} and deploy ${anomaly.policyModule} again: version ${version} has no earlier version to roll back to.`, actions: [versions] }];
}

function verification(anomaly) {
  if (anomaly.status !== 'OPEN') return [];
  return [{ text: 'After a change, check whether it still happens: a verification assesses the rule again on the latest window.', actions: [{ kind: 'verify', label: 'Verify now' }] }];
}

/** The steps for `anomaly` (the detail) when the module's active version is `activeVersion` (null: none). */
export function anomalyActionPlan(anomaly, activeVersion) {
  const version = versionNumberOf(anomaly.versionId);
  switch (anomaly.type) {
    case 'HIGH_FAILURE_RATE':
      return [
        { text: `Read the errors of the failed evaluations of version ${version}.`, actions: [auditRecordsOf(anomaly, version, 'failed', `Failed evaluations of version ${version}`)] },
        ...remedies(anomaly, version, activeVersion, 'the failures are investigated'),
        { text: 'Check whether callers send contexts the rule does not expect (types, missing fields): error codes starting with PL5 are bad input, PL3 the rule’s own runtime errors.', actions: [] },
        ...verification(anomaly),
      ];
    case 'ZOMBIE_VERSION': {
      const target = activeVersion === null ? 'a current version' : `version ${activeVersion}`;
      return [
        { text: `Find the clients still pinned to version ${version}: the audit records of its evaluations name them (actor).`, actions: [auditRecordsOf(anomaly, version, '', `Evaluations of version ${version}`)] },
        { text: `Move them to ${target}: a request that names no version follows the active version.`, actions: [] },
        ...(activeVersion === version
          ? []
          : [{ text: `If version ${version} must keep serving them, make it the active version again.`, actions: [{ kind: 'rollback', version, label: `Make version ${version} active` }] }]),
        ...verification(anomaly),
      ];
    }
    case 'PERFORMANCE_DEGRADATION':
      return [
        {
          text: 'Compare the inputs: evaluation time grows with the lists and records a rule loops over; check whether callers started sending larger contexts.',
          actions: [auditRecordsOf(anomaly, version, '', `Evaluations of version ${version}`)],
        },
        { text: 'Trace one slow evaluation with one of those contexts to see which decisions it takes.', actions: [] },
        ...remedies(anomaly, version, activeVersion, 'the slowdown is investigated'),
        ...verification(anomaly),
      ];
    default:
      return [];
  }
}

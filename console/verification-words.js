// What a verification found, in words: the job's reason (CONDITION_HOLDS, CONDITION_CLEARED,
// NO_TRAFFIC) and the status it set, for the detail and the triage panel alike.
import { formatTime, withReadableTimes } from './format.js';

const FINDINGS = {
  CONDITION_HOLDS: 'Still happening: the rule’s condition held on the latest window, so the anomaly stays open.',
  CONDITION_CLEARED: 'Cleared: the condition no longer held on the latest window, so the anomaly was resolved.',
  NO_TRAFFIC: 'No evaluations of this version in the latest window, so the anomaly was resolved.',
};

/** The finding of a verification (`{outcome, reason}`) as a sentence. */
export function verificationFinding(verification) {
  if (Object.hasOwn(FINDINGS, verification.reason)) return FINDINGS[verification.reason];
  const status = verification.outcome === 'RESOLVED' ? 'resolved' : 'open';
  return `${withReadableTimes(verification.reason)} (the anomaly is ${status}).`;
}

/** The detail's "Last verification" line. */
export function lastVerificationText(verification) {
  if (!verification) return 'Never verified.';
  return `${formatTime(verification.verifiedAt)}: ${verificationFinding(verification)}`;
}

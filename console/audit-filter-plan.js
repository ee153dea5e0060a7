// Which audit endpoint serves the page's filters. The API filters by one thing per call (a policy
// function, an event type, or a time range), so the page asks it for the most selective filter set
// and applies the others to the records it reads. Records are in seq order, which is time order,
// so a start time applied here also tells where the matching records end. The version and the
// outcome of an evaluation live in the record's payload, which no endpoint filters: always here.

/** An evaluation's outcome as its record says (`payload.success`); records of other events have none. */
export const AUDIT_OUTCOMES = { succeeded: { label: 'Succeeded', success: true }, failed: { label: 'Failed', success: false } };

/** 'succeeded', 'failed', or '' for a record that is no evaluation. */
export function outcomeOf(record) {
  const success = record.payload?.success;
  return typeof success === 'boolean' ? (success ? 'succeeded' : 'failed') : '';
}

/** Filters: `{eventType, policyModule, policyFunction, version, outcome, from, to}` (empty or null when unset; times ISO, UTC). */
export function auditFilterPlan(filters) {
  const { eventType, policyModule, policyFunction, version = null, outcome = '', from, to } = filters;
  const wholePolicy = policyModule !== '' && policyFunction !== '';
  let source;
  if (wholePolicy) source = { kind: 'policy', policyModule, policyFunction };
  else if (eventType !== '') source = { kind: 'type', eventType };
  else if (from !== '' || to !== '') source = { kind: 'range', from: from || null, to: to || null };
  else source = { kind: 'all' };

  const checks = [];
  if (source.kind !== 'type' && eventType !== '') checks.push((record) => record.eventType === eventType);
  // A module alone (no function) has no endpoint: it is matched here.
  if (!wholePolicy && policyModule !== '') checks.push((record) => record.policyModule === policyModule);
  if (!wholePolicy && policyFunction !== '') checks.push((record) => record.policyFunction === policyFunction);
  if (version !== null) checks.push((record) => record.payload?.version === version);
  if (outcome !== '') checks.push((record) => outcomeOf(record) === outcome);
  const timeInBrowser = source.kind !== 'range' && (from !== '' || to !== '');
  if (timeInBrowser && to !== '') checks.push((record) => record.occurredAt <= to);
  if (timeInBrowser && from !== '') checks.push((record) => record.occurredAt >= from);

  // What the source's endpoint filters, for records that no endpoint filtered (those the stream pushes).
  const sourceChecks = {
    policy: (record) => record.policyModule === policyModule && record.policyFunction === policyFunction,
    type: (record) => record.eventType === eventType,
    range: (record) => (from === '' || record.occurredAt >= from) && (to === '' || record.occurredAt <= to),
    all: () => true,
  };

  return {
    source,
    /** Whether the browser narrows the API's answer (then a page may take several calls). */
    narrowsInBrowser: checks.length > 0,
    matches: (record) => checks.every((check) => check(record)),
    /** For a record read from no filtered endpoint (the stream): every filter of the page. */
    matchesUnfiltered: (record) => sourceChecks[source.kind](record) && checks.every((check) => check(record)),
    /** True once the records read are older than the start time: nothing older can match. */
    pastTheStart: (record) => timeInBrowser && from !== '' && record.occurredAt < from,
  };
}

// One page of audit records for the page's filters: the plan's endpoint is read newest first from
// `before`, and when the browser narrows its answer the reader goes on in batches until the page is
// full, the list ends, or it has read MAX_BATCHES batches (then the page says so and Older goes on
// from where it stopped), so a rare match never turns into reading a whole chain in one go.

const BATCH_SIZE = 500;
const MAX_BATCHES = 5;

/** `{records, scanned, nextBefore, hasOlder, stoppedEarly}`; `nextBefore` is the `before` of the next page. */
export async function readAuditPage(api, plan, { size, before }) {
  // Without narrowing one more record than shown tells whether an older page exists.
  const limit = plan.narrowsInBrowser ? Math.max(size, BATCH_SIZE) : size + 1;
  const records = [];
  let cursor = before;
  let scanned = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const answer = await api.list(plan.source, { limit, before: cursor });
    for (let i = 0; i < answer.length; i++) {
      const record = answer[i];
      if (plan.pastTheStart(record)) return { records, scanned, nextBefore: cursor, hasOlder: false, stoppedEarly: false };
      if (plan.matches(record)) {
        if (records.length === size) return { records, scanned, nextBefore: cursor, hasOlder: true, stoppedEarly: false };
        records.push(record);
      }
      scanned += 1;
      cursor = record.seq;
    }
    if (answer.length < limit) return { records, scanned, nextBefore: cursor, hasOlder: false, stoppedEarly: false };
    // A full page that ends a full batch: older records may exist (the next page may find none).
    if (records.length === size) return { records, scanned, nextBefore: cursor, hasOlder: true, stoppedEarly: false };
  }
  return { records, scanned, nextBefore: cursor, hasOlder: true, stoppedEarly: records.length < size };
}

// Follows the tenant's audit chain after a seq: the records the service pushes as they are linked
// (its audit stream), or, when the stream cannot be held (refused, or a proxy in the way answers no
// stream), the newest records asked for every few seconds. Records come in seq order, each once.

const POLL_MS = 5000;
const POLL_BATCH = 250;
/** A poll reads at most this many batches back: a page shows the newest records, not a backlog. */
const POLL_MAX_BATCHES = 4;

/** `onRecords(records)` with the new records, ascending; returns `stop()`. */
export function followAuditRecords(api, afterSeq, { onRecords }) {
  let stopped = false;
  let timer = null;
  let last = afterSeq;

  const take = (records) => {
    const fresh = records.filter((record) => record.seq > last).sort((a, b) => a.seq - b.seq);
    if (fresh.length === 0) return;
    last = fresh.at(-1).seq;
    onRecords(fresh);
  };

  const poll = async () => {
    timer = null;
    if (stopped) return;
    try {
      const found = [];
      let before;
      for (let batch = 0; batch < POLL_MAX_BATCHES; batch++) {
        const answer = await api.list({ kind: 'all' }, { limit: POLL_BATCH, before });
        found.push(...answer.filter((record) => record.seq > last));
        if (answer.length < POLL_BATCH || answer.at(-1).seq <= last + 1) break;
        before = answer.at(-1).seq;
      }
      if (!stopped) take(found);
    } catch {
      // The service is away or refuses for now: the next round asks again.
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  };

  const stopStream = api.followRecords(afterSeq, {
    onEvent: (record) => take([record]),
    onUnavailable: () => {
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    },
  });
  return () => {
    stopped = true;
    stopStream();
    if (timer !== null) clearTimeout(timer);
  };
}

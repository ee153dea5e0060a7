// The raw floor of verifying a chain: better-sqlite3 reading the rows in pages of 1,000 (raw rows,
// payload as stored text) and node:crypto hashing each record's columns joined into one text (the
// size of the record's canonical text), on one thread or split by seq range over several. Nothing of
// the service's code: what the parts under the verifier can do at best, measured in the same run.
import { hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';

const PAGE = 1000;

/** Reads and hashes the tenant's records with seq in [first, last]; returns how many it read. */
export function readAndHash(path, tenant, first, last) {
  const db = new Database(path, { readonly: true });
  try {
    const page = db.prepare('SELECT seq, id, event_type, policy_module, policy_function, actor_id, occurred_at, payload, hash, previous_hash FROM audit_records WHERE tenant_id = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?').raw();
    let read = 0;
    let sink = 0;
    for (let next = first; next <= last; ) {
      const rows = page.all(tenant, next, last, PAGE);
      for (const r of rows) {
        const text = `{"actorId":"${r[5]}","eventType":"${r[2]}","id":"${r[1]}","occurredAt":"${r[6]}","payload":${r[7]},"policyFunction":"${r[4]}","policyModule":"${r[3]}","previousHash":"${r[9]}","seq":${r[0]}}`;
        if (hash('sha256', text) === r[8]) sink += 1;
      }
      read += rows.length;
      if (rows.length < PAGE) break;
      next = rows[rows.length - 1][0] + 1;
    }
    return { read, sink };
  } finally {
    db.close();
  }
}

/** Seconds to read and hash seqs 1..total of `tenant` on this thread. */
export function verifyFloorOneThread(path, tenant, total) {
  const started = performance.now();
  const { read } = readAndHash(path, tenant, 1, total);
  if (read !== total) throw new Error(`verify floor read ${read} of ${total} records`);
  return (performance.now() - started) / 1000;
}

/**
 * Seconds to read and hash seqs 1..total of `tenant` split into `threads` equal seq ranges: the
 * best of `rounds`, the threads started beforehand and kept from round to round.
 */
export async function verifyFloorThreads(path, tenant, total, threads, rounds) {
  const share = Math.ceil(total / threads);
  const workers = Array.from({ length: threads }, (_, i) => new Worker(new URL('./verify-floor-thread.mjs', import.meta.url), {
    workerData: { path, tenant, first: i * share + 1, last: Math.min(total, (i + 1) * share) },
  }));
  const answers = () => Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  })));
  try {
    await answers();
    let best = Infinity;
    for (let round = 0; round < rounds; round += 1) {
      const started = performance.now();
      const done = answers();
      for (const w of workers) w.postMessage('go');
      const read = (await done).reduce((sum, r) => sum + r.read, 0);
      best = Math.min(best, (performance.now() - started) / 1000);
      if (read !== total) throw new Error(`verify floor read ${read} of ${total} records`);
    }
    return best;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

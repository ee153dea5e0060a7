// Canonical JSON of one evaluation record: the `canonicalize` package against the service's own
// RFC 8785 writer, with JSON.stringify (not canonical) as the floor. Every writer must give the
// same text as `canonicalize` on every sample before anything is timed. Rounds alternate between
// the writers and the median round counts, so a busy machine slows them alike.
import canonicalize from 'canonicalize';
import { canonicalAuditContent, canonicalJson, normaliseAuditEvent } from '../../dist/src/audit/index.js';

const SAMPLES = 1_000;

/**
 * Records as the writer hashes them: `event(i)` normalised (its payload's members put in canonical
 * order), with an id, seq and previousHash.
 */
function records(event) {
  const now = new Date('2026-01-02T03:04:05.678Z');
  return Array.from({ length: SAMPLES }, (_, i) => {
    const given = event(i);
    const record = {
      id: `0b9d6d2c-4a3e-4f7e-9a51-${String(i).padStart(12, '0')}`,
      seq: i + 1,
      ...normaliseAuditEvent(given, now),
      previousHash: (i % 16).toString(16).repeat(64),
    };
    // The hashed fields with the payload as the caller gave it: what `canonicalize` was handed.
    return { record, content: { ...record, payload: given.payload } };
  });
}

const writers = [
  { name: '`canonicalize` package (baseline)', run: (sample) => canonicalize(sample.content) },
  { name: 'canonicalJson, payload as given', run: (sample) => canonicalJson(sample.content) },
  { name: 'canonicalAuditContent (the writer\'s path)', run: (sample) => canonicalAuditContent(sample.record) },
  { name: 'JSON.stringify (floor, not canonical)', run: (sample) => JSON.stringify(sample.content) },
];

/** µs per record of each writer, and its speed against `canonicalize` (higher is faster). */
export function measureCanonical(event, quick) {
  const samples = records(event);
  for (const sample of samples) {
    const expected = canonicalize(sample.content);
    for (const writer of writers.slice(1, 3)) {
      if (writer.run(sample) !== expected) throw new Error(`${writer.name} differs from canonicalize on ${expected}`);
    }
  }
  const perRound = quick ? 2_000 : 50_000;
  const rounds = quick ? 3 : 15;
  const times = writers.map(() => []);
  let sink = 0;
  for (let round = -1; round < rounds; round += 1) {
    for (const [w, writer] of writers.entries()) {
      const started = performance.now();
      for (let i = 0; i < perRound; i += 1) sink += writer.run(samples[i % SAMPLES]).length;
      // Round -1 warms every writer up.
      if (round >= 0) times[w].push(((performance.now() - started) * 1000) / perRound);
    }
  }
  if (sink === 0) throw new Error('nothing was written');
  const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const baseline = median(times[0]);
  return writers.map((writer, w) => ({ name: writer.name, us: median(times[w]), speedup: baseline / median(times[w]) }));
}

// How the MongoDB adapter keeps an anomaly's parts apart (FerretDB in CI: no transactions, and one
// of two concurrent updates of a document is lost): its detection, inserted before the anomaly and
// never updated but for its audit mark (whoever finds it without its anomaly completes it), and its
// verification, which only the verification job writes, while detections update the observation.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AnomalyObservation, StoredAnomaly } from '../../src/anomalies/index.js';
import type { OwedAudit } from '../../src/audit/index.js';
import { openMongoStore, type MongoStore } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, uniqueDatabaseName } from '../support/index.js';

const KEY = { type: 'HIGH_FAILURE_RATE', policyModule: 'acme.claims', policyFunction: 'assess', version: 1 } as const;
const AT = '2026-05-01T10:00:00.000Z';

function observation(summary: string): AnomalyObservation {
  return { observedAt: AT, severity: 'HIGH', summary, metrics: { failureRate: 0.3 }, recommendedActions: [] };
}

function anomaly(id: string, spec: Partial<StoredAnomaly> = {}): StoredAnomaly {
  return { ...KEY, id, occurrence: 1, detectedAt: AT, observation: observation('first'), verification: null, ...spec };
}

const owed = (recordId: string): OwedAudit => ({ recordId, claim: { owner: 'detector', until: '2026-05-01T10:01:00.000Z' } });

describeWithMongo('anomaly detections and verifications on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_detections');
  let store: MongoStore;
  let other: MongoStore;
  let tenants = 0;
  const newTenant = () => `detections-${(tenants += 1)}`;

  beforeAll(async () => {
    store = await openMongoStore({ url, database });
    other = await openMongoStore({ url, database });
  });

  afterAll(async () => {
    await store?.close();
    await other?.close();
    await dropMongoDatabase(url, database);
  });

  it('keeps every observation update and every audit mark when the two race on one anomaly', async () => {
    const tenant = newTenant();
    for (let round = 1; round <= 40; round += 1) {
      const id = `race-${round}`;
      expect(await store.anomalies.insert(tenant, anomaly(id, { version: round }), owed(`rec-${round}`))).toBe(true);
      await Promise.all([
        store.anomalies.markAudited(tenant, { kind: 'detection', anomalyId: id }, AT),
        other.anomalies.update(tenant, id, { observation: observation(`round ${round}`) }),
      ]);
      expect((await store.anomalies.get(tenant, id))?.observation.summary).toBe(`round ${round}`);
      expect((await store.anomalies.asDetected(tenant, id))?.observation.summary).toBe('first');
    }
    expect((await store.anomalies.owedAudits('2999-01-01T00:00:00.000Z', 10_000)).filter((o) => o.tenantId === tenant)).toEqual([]);
  }, 60_000);

  it('keeps a verification and an observation written at once to one anomaly by the verifier and a detector', async () => {
    const tenant = newTenant();
    for (let round = 1; round <= 40; round += 1) {
      const id = `both-${round}`;
      expect(await store.anomalies.insert(tenant, anomaly(id, { version: round }))).toBe(true);
      const verification = { verifiedAt: AT, outcome: 'RESOLVED' as const, reason: 'CONDITION_CLEARED', metrics: { round } };
      await Promise.all([
        store.anomalies.update(tenant, id, { verification }),
        other.anomalies.update(tenant, id, { observation: observation(`round ${round}`) }),
      ]);
      const state = await store.anomalies.get(tenant, id);
      expect(state?.observation.summary).toBe(`round ${round}`);
      expect(state?.verification).toEqual(verification);
    }
  }, 60_000);

  it('completes an anomaly whose writer stopped after storing its detection: by the next opener, or by the follower’s read', async () => {
    const tenant = newTenant();
    const detections = store.raw.db.collection('anomaly_detections');
    // What a writer stopped between its two inserts leaves: the detection, owing its record, alone.
    const stranded = (id: string, version: number) => ({
      _id: `${tenant}:${id}`,
      tenantId: tenant,
      anomalyId: id,
      ...KEY,
      version,
      occurrence: 1,
      detectedAt: AT,
      observation: JSON.stringify(observation('first')),
      audit: { recordId: `rec-${id}`, claimedBy: 'gone', claimedUntil: AT, auditedAt: null },
      auditPending: true,
    });
    await detections.insertOne(stranded('stopped-1', 1) as never);
    await detections.insertOne(stranded('stopped-2', 2) as never);
    expect(await store.anomalies.get(tenant, 'stopped-1')).toBeNull();
    expect(await store.anomalies.latest(tenant, KEY)).toBeNull();

    // The next detection of the key finds the occurrence taken, completes it and updates it instead.
    expect(await other.anomalies.insert(tenant, anomaly('late-opener'), owed('rec-late'))).toBe(false);
    expect(await store.anomalies.latest(tenant, KEY)).toMatchObject({ id: 'stopped-1', occurrence: 1, status: 'OPEN', observation: observation('first') });
    expect(await store.anomalies.get(tenant, 'late-opener')).toBeNull();

    // The follower, reading what the record is made of, completes the other.
    expect(await store.anomalies.asDetected(tenant, 'stopped-2')).toEqual(anomaly('stopped-2', { version: 2 }));
    expect(await store.anomalies.get(tenant, 'stopped-2')).toMatchObject({ id: 'stopped-2', version: 2, status: 'OPEN' });
    const owedIds = (await store.anomalies.owedAudits('2999-01-01T00:00:00.000Z', 10_000)).filter((o) => o.tenantId === tenant).map((o) => o.recordId);
    expect(owedIds.sort()).toEqual(['rec-stopped-1', 'rec-stopped-2']);
  });

  it('leaves an occurrence stored before detections were kept to its anomaly, owing nothing for the loser', async () => {
    const tenant = newTenant();
    const verifiedBefore = { verifiedAt: AT, outcome: 'OPEN' as const, reason: 'CONDITION_HOLDS', metrics: { failureRate: 0.4 } };
    await store.raw.db.collection('anomalies').insertOne({
      _id: `${tenant}:old-1`, tenantId: tenant, id: 'old-1', ...KEY, occurrence: 1, detectedAt: AT, observation: JSON.stringify(observation('old')),
      verification: JSON.stringify(verifiedBefore),
    } as never);
    // Its verification, stored with it, reads back until a job verifies it again.
    expect((await store.anomalies.get(tenant, 'old-1'))?.verification).toEqual(verifiedBefore);
    const verifiedNow = { ...verifiedBefore, outcome: 'RESOLVED' as const, reason: 'CONDITION_CLEARED' };
    expect(await store.anomalies.update(tenant, 'old-1', { verification: verifiedNow })).toBe(true);
    expect((await store.anomalies.latest(tenant, KEY))?.verification).toEqual(verifiedNow);
    expect(await store.anomalies.update(tenant, 'nobody', { verification: verifiedNow })).toBe(false);
    expect(await store.anomalies.insert(tenant, anomaly('new-1'), owed('rec-new-1'))).toBe(false);
    expect(await store.anomalies.get(tenant, 'new-1')).toBeNull();
    expect(await store.anomalies.asDetected(tenant, 'new-1')).toBeNull();
    expect(await store.anomalies.asDetected(tenant, 'old-1')).toBeNull();
    expect((await store.anomalies.owedAudits('2999-01-01T00:00:00.000Z', 10_000)).filter((o) => o.tenantId === tenant)).toEqual([]);
    expect(await store.anomalies.insert(tenant, anomaly('new-2', { occurrence: 2 }), owed('rec-new-2'))).toBe(true);
  });

  it('settles the open marks a reader finds spent, and keeps those of changes in flight', async () => {
    const tenant = newTenant();
    const marks = store.raw.db.collection('anomaly_open_marks');
    const all = { observedBefore: '2999-01-01T00:00:00.000Z', limit: 100 };
    const markSeqs = async (id: string) => (await marks.find({ tenantId: tenant, anomalyId: id }).toArray()).map((m) => m.seq as number).sort();
    const mark = (anomalyId: string, seq: number, markedAt: string) => ({ _id: `${tenant}:${anomalyId}:${seq}`, tenantId: tenant, anomalyId, seq, markedAt }) as never;
    expect(await store.anomalies.insert(tenant, anomaly('spent'))).toBe(true);
    expect(await markSeqs('spent')).toEqual([0]);
    await store.anomalies.appendTransition(tenant, { anomalyId: 'spent', seq: 1, from: 'OPEN', to: 'RESOLVED', note: null, actorId: 'alice', occurredAt: AT });
    expect(await markSeqs('spent')).toEqual([]);
    // A loser that marked OPEN at seq 1, a writer that marked seq 2 and has not stored it yet, and
    // marks of anomalies never stored: one of a writer that stopped an hour ago, one just made.
    await marks.insertMany([
      mark('spent', 1, AT),
      mark('spent', 2, AT),
      mark('ghost-old', 0, new Date(Date.now() - 2 * 3_600_000).toISOString()),
      mark('ghost-new', 0, new Date().toISOString()),
    ]);
    expect(await store.anomalies.openObservedBefore(tenant, all)).toEqual([]);
    expect(await markSeqs('spent')).toEqual([2]);
    expect(await markSeqs('ghost-old')).toEqual([]);
    expect(await markSeqs('ghost-new')).toEqual([0]);
    await store.anomalies.appendTransition(tenant, { anomalyId: 'spent', seq: 2, from: 'RESOLVED', to: 'OPEN', note: null, actorId: 'alice', occurredAt: AT });
    expect((await store.anomalies.openObservedBefore(tenant, all)).map((a) => a.id)).toEqual(['spent']);

    // Detections whose writer stopped before storing the anomaly: one marked an hour ago keeps its
    // mark, one stored before marks were kept has none; either is marked when its anomaly is stored.
    const detection = (id: string, version: number) =>
      ({ _id: `${tenant}:${id}`, tenantId: tenant, anomalyId: id, ...KEY, version, occurrence: 1, detectedAt: AT, observation: JSON.stringify(observation(id)) }) as never;
    await store.raw.db.collection('anomaly_detections').insertMany([detection('stranded-marked', 7), detection('stranded-unmarked', 8)]);
    await marks.insertOne(mark('stranded-marked', 0, new Date(Date.now() - 2 * 3_600_000).toISOString()));
    expect((await store.anomalies.openObservedBefore(tenant, all)).map((a) => a.id)).toEqual(['spent']);
    expect(await markSeqs('stranded-marked')).toEqual([0]);
    await store.anomalies.asDetected(tenant, 'stranded-marked');
    await store.anomalies.asDetected(tenant, 'stranded-unmarked');
    expect((await store.anomalies.openObservedBefore(tenant, all)).map((a) => a.id).sort()).toEqual(['spent', 'stranded-marked', 'stranded-unmarked']);
  });

  it('marks the anomalies stored before the open marks once, when a store first opens the database', async () => {
    const tenant = newTenant();
    const marks = store.raw.db.collection('anomaly_open_marks');
    const all = { observedBefore: '2999-01-01T00:00:00.000Z', limit: 100 };
    const change = (anomalyId: string, to: 'RESOLVED' | 'VERIFYING') => ({ anomalyId, seq: 1, from: 'OPEN' as const, to, note: null, actorId: 'alice', occurredAt: AT });
    for (const [id, version] of [['old-open', 1], ['old-resolved', 2], ['old-verifying', 3]] as const) {
      expect(await store.anomalies.insert(tenant, anomaly(id, { version }))).toBe(true);
    }
    await store.anomalies.appendTransition(tenant, change('old-resolved', 'RESOLVED'));
    await store.anomalies.appendTransition(tenant, change('old-verifying', 'VERIFYING'));
    // As they were before marks were kept.
    const unmark = () => marks.deleteMany({ $or: [{ tenantId: tenant }, { _id: 'backfilled' as never }] });
    await unmark();
    expect(await store.anomalies.openObservedBefore(tenant, all)).toEqual([]);
    const reopened = await openMongoStore({ url, database });
    try {
      expect((await reopened.anomalies.openObservedBefore(tenant, all)).map((a) => a.id)).toEqual(['old-open']);
      // Marked from their detection; the reader deleted the marks of those no longer OPEN.
      expect((await marks.find({ tenantId: tenant }).toArray()).map((m) => m._id)).toEqual([`${tenant}:old-open:0`]);
    } finally {
      await reopened.close();
    }
    await marks.deleteMany({ tenantId: tenant });
    const again = await openMongoStore({ url, database });
    try {
      expect(await again.anomalies.openObservedBefore(tenant, all)).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

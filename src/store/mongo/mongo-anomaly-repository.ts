import type { Db, Filter } from 'mongodb';
import type {
  AnomalyRepository,
  AnomalyState,
  AnomalyTransition,
  AnomalyVerification,
  AuditedAnomalyEntry,
  StoredAnomaly,
} from '../../anomalies/anomaly-store.js';
import {
  anomalyState,
  assertAnomalyKey,
  assertAuditedEntry,
  assertListQuery,
  assertObservation,
  assertOpenQuery,
  assertStoredAnomaly,
  assertTransition,
  assertTransitionExtends,
  assertVerification,
  compareAuditedEntries,
  compareByObservation,
  isAnomalyId,
} from '../anomaly-store-rules.js';
import { auditOutboxOfParts } from '../audit-outbox-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { contiguousHead } from './contiguous-head.js';
import { isDuplicateKey } from './duplicate-key.js';
import { mongoAuditOutbox, owedAuditFields } from './mongo-audit-outbox.js';
import {
  ANOMALY_COLLECTIONS,
  type AnomalyDetectionDocument,
  type AnomalyDocument,
  type AnomalyOpenMarkDocument,
  type AnomalyTransitionDocument,
  type AnomalyVerificationDocument,
  openMarkId,
} from './mongo-anomaly-collections.js';

function transitionOf(doc: AnomalyTransitionDocument): AnomalyTransition {
  return {
    anomalyId: doc.anomalyId,
    seq: doc.seq,
    from: doc.from,
    to: doc.to,
    note: doc.note,
    actorId: doc.actorId,
    occurredAt: doc.occurredAt,
    ...(doc.verification === undefined ? {} : { verification: JSON.parse(doc.verification) as AnomalyVerification }),
    ...(doc.requestRef === undefined ? {} : { requestRef: doc.requestRef }),
  };
}

const anomalyDocumentId = (tenantId: string, anomalyId: string) => `${tenantId}:${anomalyId}`;
const transitionId = (tenantId: string, anomalyId: string, seq: number) => `${tenantId}:${anomalyId}:${seq}`;

/** A mark this old without its anomaly or detection was left by a writer that stopped before storing them: long against an insert. */
const ORPHAN_MARK_MS = 3_600_000;
/** Anomalies read per `$in` query when the OPEN ones are looked up by their marks. */
const IDS_PER_QUERY = 1000;

function storedAnomalyOf(doc: AnomalyDocument): StoredAnomaly {
  return {
    id: doc.id,
    type: doc.type,
    policyModule: doc.policyModule,
    policyFunction: doc.policyFunction,
    version: doc.version,
    occurrence: doc.occurrence,
    detectedAt: doc.detectedAt,
    observation: JSON.parse(doc.observation) as StoredAnomaly['observation'],
    verification: doc.verification === null ? null : (JSON.parse(doc.verification) as StoredAnomaly['verification']),
  };
}

/** The anomaly as a detection stores it: no verification yet. */
function anomalyOfDetection(detection: AnomalyDetectionDocument): AnomalyDocument {
  const { _id, tenantId, anomalyId, type, policyModule, policyFunction, version, occurrence, detectedAt, observation } = detection;
  return { _id, tenantId, id: anomalyId, type, policyModule, policyFunction, version, occurrence, detectedAt, observation, verification: null };
}

/**
 * An anomaly's parts live apart, each written by one kind of writer, because FerretDB loses one of
 * two concurrent updates of a document: the anomaly (its observation, which detections replace),
 * its detection (an outbox entry, only marked) and its verification (the verification job's).
 * Every race is decided by an insert: the detections' unique (tenant, key, occurrence) index for
 * detectors opening the same anomaly (the detection is inserted first, then the anomaly; whoever
 * finds a detection without its anomaly completes it), the transition `_id` `<tenant>:<anomaly>:<seq>` for concurrent status
 * changes (FerretDB 1.24 has no transactions and no isolated read-modify-write). Observation and
 * verification are replaced with `$set`: their writers (detection, the verification job) agree
 * that the newest observation wins. A status is found by probing transition `_id`s from seq 1
 * (galloping, then bisecting), which every backend serves from its `_id` index.
 */
export function createMongoAnomalyRepository(db: Db): AnomalyRepository {
  const anomalies = db.collection<AnomalyDocument>(ANOMALY_COLLECTIONS.anomalies);
  const detections = db.collection<AnomalyDetectionDocument>(ANOMALY_COLLECTIONS.detections);
  const verifications = db.collection<AnomalyVerificationDocument>(ANOMALY_COLLECTIONS.verifications);
  const transitions = db.collection<AnomalyTransitionDocument>(ANOMALY_COLLECTIONS.transitions);
  const openMarks = db.collection<AnomalyOpenMarkDocument>(ANOMALY_COLLECTIONS.openMarks);
  const outboxes = {
    detection: mongoAuditOutbox<AuditedAnomalyEntry>(db, {
      entries: ANOMALY_COLLECTIONS.detections,
      claims: ANOMALY_COLLECTIONS.auditClaims,
      entryFields: ['anomalyId'],
      entryOf: (doc) => ({ kind: 'detection', anomalyId: doc.anomalyId as string }),
      documentId: (tenantId, { anomalyId }) => anomalyDocumentId(tenantId, anomalyId),
    }),
    transition: mongoAuditOutbox<AuditedAnomalyEntry>(db, {
      entries: ANOMALY_COLLECTIONS.transitions,
      claims: ANOMALY_COLLECTIONS.auditClaims,
      entryFields: ['anomalyId', 'seq'],
      entryOf: (doc) => ({ kind: 'transition', anomalyId: doc.anomalyId as string, seq: doc.seq as number }),
      documentId: (tenantId, entry) => transitionId(tenantId, entry.anomalyId, entry.kind === 'transition' ? entry.seq : 0),
    }),
  };
  const transitionAt = (tenantId: string, anomalyId: string, seq: number) =>
    transitions.findOne({ _id: transitionId(tenantId, anomalyId, seq) });

  /** Marks the anomaly as possibly OPEN from status `seq` on (a no-op when marked). */
  async function markOpen(tenantId: string, anomalyId: string, seq: number): Promise<void> {
    try {
      await openMarks.insertOne({ _id: openMarkId(tenantId, anomalyId, seq), tenantId, anomalyId, seq, markedAt: new Date().toISOString() });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /** The anomaly is not OPEN at status `seq`: its marks up to there are spent (a later OPEN marks its own seq first). */
  async function unmarkUpTo(tenantId: string, anomalyId: string, seq: number): Promise<void> {
    await openMarks.deleteMany({ tenantId, anomalyId, seq: { $lte: seq } });
  }

  /**
   * Deletes the old marks of anomalies never stored: neither the anomaly nor its detection exists
   * (a detection alone is stored later, see completeDetection, and keeps its mark).
   */
  async function deleteOrphans(tenantId: string, marks: AnomalyOpenMarkDocument[], stored: ReadonlySet<string>): Promise<void> {
    const orphanedBefore = Date.now() - ORPHAN_MARK_MS;
    const old = marks.filter((mark) => !stored.has(mark.anomalyId) && Date.parse(mark.markedAt) < orphanedBefore);
    if (old.length === 0) return;
    const detected = await detections
      .find({ _id: { $in: [...new Set(old.map((mark) => anomalyDocumentId(tenantId, mark.anomalyId)))] } }, { projection: { anomalyId: 1 } })
      .toArray();
    const stranded = new Set(detected.map((doc) => doc.anomalyId));
    const orphans = old.filter((mark) => !stranded.has(mark.anomalyId)).map((mark) => mark._id);
    if (orphans.length > 0) await openMarks.deleteMany({ _id: { $in: orphans } });
  }

  /** Stores the anomaly of a detection whose writer stopped before storing it (a no-op when stored). */
  async function completeDetection(detection: AnomalyDetectionDocument): Promise<void> {
    if ((await anomalies.findOne({ _id: detection._id }, { projection: { _id: 1 } })) !== null) return;
    // Its writer marked it first, unless it was stored before marks were kept.
    await markOpen(detection.tenantId, detection.anomalyId, 0);
    try {
      await anomalies.insertOne(anomalyOfDetection(detection));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async function withStatus(tenantId: string, doc: AnomalyDocument): Promise<AnomalyState> {
    const [{ value }, verified] = await Promise.all([
      contiguousHead((n) => transitionAt(tenantId, doc.id, n), 0),
      verifications.findOne({ _id: doc._id }),
    ]);
    return anomalyState(
      // The job's verification, else the one stored with the anomaly (before verifications were apart).
      storedAnomalyOf(verified === null ? doc : { ...doc, verification: verified.verification }),
      value === null ? null : { seq: value.seq, to: value.to, occurredAt: value.occurredAt },
    );
  }

  return {
    async insert(tenantId, anomaly, owedAudit) {
      assertTenantId(tenantId);
      assertStoredAnomaly(anomaly);
      const detection: AnomalyDetectionDocument = {
        _id: anomalyDocumentId(tenantId, anomaly.id),
        tenantId,
        anomalyId: anomaly.id,
        type: anomaly.type,
        policyModule: anomaly.policyModule,
        policyFunction: anomaly.policyFunction,
        version: anomaly.version,
        occurrence: anomaly.occurrence,
        detectedAt: normaliseInstant(anomaly.detectedAt, 'detectedAt'),
        observation: JSON.stringify(anomaly.observation),
        ...owedAuditFields(owedAudit),
      };
      // Marked before it can exist, so an OPEN anomaly is never without its mark.
      await markOpen(tenantId, anomaly.id, 0);
      try {
        await detections.insertOne(detection);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Another detector opened this occurrence; should it have stopped before storing its anomaly, complete it.
        const { type, policyModule, policyFunction, version, occurrence } = anomaly;
        const winner = await detections.findOne({ tenantId, type, policyModule, policyFunction, version, occurrence });
        if (winner !== null) await completeDetection(winner);
        if (winner?.anomalyId !== anomaly.id) await unmarkUpTo(tenantId, anomaly.id, 0);
        return false;
      }
      const stored = { ...anomalyOfDetection(detection), verification: anomaly.verification === null ? null : JSON.stringify(anomaly.verification) };
      try {
        await anomalies.insertOne(stored);
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Completed from this detection by another writer: the anomaly is this one's.
        if ((await anomalies.findOne({ _id: stored._id }, { projection: { _id: 1 } })) !== null) return true;
        // The occurrence is an anomaly stored before detections were kept: this one was never opened.
        await detections.deleteOne({ _id: detection._id });
        await unmarkUpTo(tenantId, anomaly.id, 0);
        return false;
      }
    },

    async asDetected(tenantId, id) {
      assertTenantId(tenantId);
      if (!isAnomalyId(id)) return null;
      const detection = await detections.findOne({ _id: anomalyDocumentId(tenantId, id) });
      if (detection === null) return null;
      await completeDetection(detection);
      return storedAnomalyOf(anomalyOfDetection(detection));
    },

    async latest(tenantId, key) {
      assertTenantId(tenantId);
      assertAnomalyKey(key);
      const { type, policyModule, policyFunction, version } = key;
      const doc = await anomalies.find({ tenantId, type, policyModule, policyFunction, version }).sort({ occurrence: -1 }).limit(1).next();
      return doc === null ? null : withStatus(tenantId, doc);
    },

    async get(tenantId, id) {
      assertTenantId(tenantId);
      if (!isAnomalyId(id)) return null;
      const doc = await anomalies.findOne({ _id: anomalyDocumentId(tenantId, id) });
      return doc === null ? null : withStatus(tenantId, doc);
    },

    async list(tenantId, query) {
      assertTenantId(tenantId);
      assertListQuery(query);
      const filter: Filter<AnomalyDocument> = { tenantId, detectedAt: { $gte: normaliseInstant(query.detectedFrom, 'detectedFrom') } };
      if (query.type !== undefined) filter.type = query.type;
      const [docs, total] = await Promise.all([
        anomalies.find(filter).sort({ detectedAt: -1, id: 1 }).skip(query.offset).limit(query.limit).toArray(),
        anomalies.countDocuments(filter),
      ]);
      return { items: await Promise.all(docs.map((doc) => withStatus(tenantId, doc))), total };
    },

    /**
     * Reads the tenant's marks (about one per OPEN anomaly) and their anomalies, takes those observed
     * before the bound, oldest first, and checks each one's status against its transitions; a mark
     * found spent is deleted on the way.
     */
    async openObservedBefore(tenantId, query) {
      assertTenantId(tenantId);
      assertOpenQuery(query);
      const before = Date.parse(normaliseInstant(query.observedBefore, 'observedBefore'));
      const marks = await openMarks.find({ tenantId }).toArray();
      const ids = [...new Set(marks.map((mark) => mark.anomalyId))];
      const docs: AnomalyDocument[] = [];
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const chunk = ids.slice(i, i + IDS_PER_QUERY).map((id) => anomalyDocumentId(tenantId, id));
        docs.push(...(await anomalies.find({ _id: { $in: chunk } }).toArray()));
      }
      await deleteOrphans(tenantId, marks, new Set(docs.map((doc) => doc.id)));
      const candidates = docs
        .map((doc) => ({ doc, anomaly: storedAnomalyOf(doc) }))
        .filter(({ anomaly }) => Date.parse(anomaly.observation.observedAt) < before)
        .sort((a, b) => compareByObservation(a.anomaly, b.anomaly));
      const open: AnomalyState[] = [];
      for (const { doc } of candidates) {
        if (open.length === query.limit) break;
        const state = await withStatus(tenantId, doc);
        if (state.status === 'OPEN') open.push(state);
        else await unmarkUpTo(tenantId, state.id, state.statusSeq);
      }
      return open;
    },

    async update(tenantId, id, change) {
      assertTenantId(tenantId);
      if (change.observation !== undefined) assertObservation(change.observation);
      if (change.verification !== undefined) assertVerification(change.verification);
      if (!isAnomalyId(id)) return false;
      const _id = anomalyDocumentId(tenantId, id);
      if (change.observation !== undefined) {
        const result = await anomalies.updateOne({ _id }, { $set: { observation: JSON.stringify(change.observation) } });
        if (result.matchedCount === 0) return false;
      } else if ((await anomalies.findOne({ _id }, { projection: { _id: 1 } })) === null) {
        return false;
      }
      if (change.verification !== undefined) {
        await verifications.replaceOne({ _id }, { tenantId, verification: JSON.stringify(change.verification) }, { upsert: true });
      }
      return true;
    },

    async appendTransition(tenantId, transition, owedAudit) {
      assertTenantId(tenantId);
      assertTransition(transition);
      const owedFields = owedAuditFields(owedAudit);
      const { anomalyId, seq } = transition;
      const [anomaly, predecessor] = await Promise.all([
        anomalies.findOne({ _id: anomalyDocumentId(tenantId, anomalyId) }, { projection: { _id: 1 } }),
        seq > 1 ? transitionAt(tenantId, anomalyId, seq - 1) : Promise.resolve(null),
      ]);
      // A taken seq means another change won, whatever it was: not an error, a lost race.
      if (await transitionAt(tenantId, anomalyId, seq)) return false;
      assertTransitionExtends(transition, anomaly !== null, predecessor === null ? null : transitionOf(predecessor));
      // A change to OPEN is marked before it is stored, a change away from OPEN unmarks once stored.
      if (transition.to === 'OPEN') await markOpen(tenantId, anomalyId, seq);
      try {
        await transitions.insertOne({
          _id: transitionId(tenantId, anomalyId, seq),
          tenantId,
          anomalyId,
          seq,
          from: transition.from,
          to: transition.to,
          note: transition.note,
          actorId: transition.actorId,
          occurredAt: normaliseInstant(transition.occurredAt, 'occurredAt'),
          ...(transition.verification === undefined ? {} : { verification: JSON.stringify(transition.verification) }),
          ...(transition.requestRef === undefined ? {} : { requestRef: transition.requestRef }),
          ...owedFields,
        });
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      if (transition.to !== 'OPEN') await unmarkUpTo(tenantId, anomalyId, seq);
      return true;
    },

    async transitions(tenantId, anomalyId) {
      assertTenantId(tenantId);
      if (!isAnomalyId(anomalyId)) return [];
      const { head } = await contiguousHead((n) => transitionAt(tenantId, anomalyId, n), 0);
      const docs = await Promise.all(Array.from({ length: head }, (_, i) => transitionAt(tenantId, anomalyId, i + 1)));
      return docs.filter((doc): doc is AnomalyTransitionDocument => doc !== null).map(transitionOf);
    },

    ...auditOutboxOfParts(outboxes, { assert: assertAuditedEntry, compare: compareAuditedEntries }),
  };
}

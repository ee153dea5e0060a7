import type { Db } from 'mongodb';
import { duplicateKeyPositions } from './duplicate-key.js';
import { ANOMALY_COLLECTIONS, openMarkId, type AnomalyDocument, type AnomalyOpenMarkDocument } from './mongo-anomaly-collections.js';

/**
 * The mark that says the backfill below ran to its end. Its empty `tenantId` is no tenant's, so no
 * tenant's query finds it.
 */
const BACKFILLED: Pick<AnomalyOpenMarkDocument, '_id' | 'tenantId' | 'anomalyId' | 'seq'> = { _id: 'backfilled', tenantId: '', anomalyId: '', seq: 0 };
/** Marks inserted per command. */
const MARKS_PER_INSERT = 1000;

/**
 * Marks every anomaly stored before the open marks existed, once per database, so that those still
 * OPEN are found too. Each one is marked from its detection (seq 0) without reading its status: a
 * reader checks the status of each mark it finds and deletes the spent ones (see
 * AnomalyOpenMarkDocument). Writers running meanwhile mark as they always do; a backfill stopped
 * halfway runs again at the next start (duplicates are skipped).
 */
export async function backfillOpenMarks(db: Db): Promise<void> {
  const marks = db.collection<AnomalyOpenMarkDocument>(ANOMALY_COLLECTIONS.openMarks);
  if ((await marks.findOne({ _id: BACKFILLED._id }, { projection: { _id: 1 } })) !== null) return;
  const markedAt = new Date().toISOString();
  const insert = async (batch: AnomalyOpenMarkDocument[]) => {
    if (batch.length === 0) return;
    try {
      await marks.insertMany(batch, { ordered: false });
    } catch (error) {
      duplicateKeyPositions(error);
    }
  };
  let batch: AnomalyOpenMarkDocument[] = [];
  const anomalies = db.collection<AnomalyDocument>(ANOMALY_COLLECTIONS.anomalies).find({}, { projection: { tenantId: 1, id: 1 } });
  for await (const { tenantId, id } of anomalies) {
    batch.push({ _id: openMarkId(tenantId, id, 0), tenantId, anomalyId: id, seq: 0, markedAt });
    if (batch.length === MARKS_PER_INSERT) {
      await insert(batch);
      batch = [];
    }
  }
  await insert(batch);
  await insert([{ ...BACKFILLED, markedAt }]);
}

// What one query costs on the MongoDB server at MONGODB_URL as its collection grows, through the bare
// driver (nothing of the service): a point read by `_id`, a page by an indexed field with and without
// a sort, a delete of 100 documents by `_id`, and an update by `_id`, on collections of 1,000, 10,000
// and 50,000 documents of ~600 bytes (the size of a waiting audit record) with the index the query
// could use. On MongoDB each stays flat; FerretDB 1.24 (SQLite backend) uses no index but `_id`
// equality in a find, so the others grow with the collection. `node bench/store/query-costs.mjs`
// (QUICK=1: 1,000 and 5,000 documents).
import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { fmt, printTable } from '../support/table.mjs';

const url = process.env.MONGODB_URL?.trim();
if (!url) {
  console.error('MONGODB_URL is not set: this benchmark measures a MongoDB server (FerretDB included).');
  process.exit(2);
}
const quick = process.env.QUICK === '1';
const SIZES = quick ? [1_000, 5_000] : [1_000, 10_000, 50_000];
const REPEATS = quick ? 3 : 5;
const record = 'x'.repeat(600);

async function timeEach(fn) {
  await fn(-1);
  const started = performance.now();
  for (let i = 0; i < REPEATS; i += 1) await fn(i);
  return (performance.now() - started) / REPEATS;
}

const client = await MongoClient.connect(url);
const db = client.db(`pe_bench_queries_${randomBytes(4).toString('hex')}`);
const rows = [];
try {
  const docs = db.collection('docs');
  await docs.createIndexes([{ key: { tenantId: 1, order: 1 }, name: 'tenant_order' }]);
  let stored = 0;
  let deleted = 0;
  for (const size of SIZES) {
    while (stored < size) {
      const batch = Array.from({ length: Math.min(1_000, size - stored) }, (_, i) => ({ _id: `d:${stored + i}`, tenantId: (stored + i) % 10 === 0 ? 'small' : 'large', order: new ObjectId(), record, n: 0 }));
      await docs.insertMany(batch, { ordered: false });
      stored += batch.length;
    }
    const id = (i) => `d:${(i + 7) * 13 % stored}`;
    const cost = {
      byId: await timeEach((i) => docs.findOne({ _id: id(i) })),
      sorted: await timeEach(() => docs.find({ tenantId: 'small' }).sort({ order: 1 }).limit(100).toArray()),
      unsorted: await timeEach(() => docs.find({ tenantId: 'small' }).hint('tenant_order').limit(100).toArray()),
      deleteHundred: await timeEach(() => docs.deleteMany({ _id: { $in: Array.from({ length: 100 }, () => `d:${deleted++}`) } })),
      updateById: await timeEach((i) => docs.updateOne({ _id: id(i + 100) }, { $inc: { n: 1 } })),
    };
    rows.push({ size, ...cost });
  }
} finally {
  await db.dropDatabase();
  await client.close();
}

console.log(`query costs at ${url.replace(/\/\/[^@/]*@/, '//…@')}: ms per query, mean of ${REPEATS} after one untimed; documents of ~600 bytes, a tenth of them in the queried tenant`);
const first = rows[0];
printTable(
  ['documents', 'find by _id', 'page of 100 by tenant, sorted', 'the same, unsorted (hinted index)', 'delete 100 by _id', 'update by _id'],
  rows.map((r) => [fmt(r.size), ...['byId', 'sorted', 'unsorted', 'deleteHundred', 'updateById'].map((k) => `${fmt(r[k], 1)} (${fmt(r[k] / first[k], 1)}×)`)]),
);

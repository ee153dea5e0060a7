export { MONGODB_URL, MONGO_SKIP_REASON, describeWithMongo } from './mongo-env.js';
export { sqliteTarget, mongoTarget, uniqueDatabaseName, type StoreTarget, type RawAuditChanges } from './store-targets.js';
export { buildRecords, buildChain, headOf, type RecordSpec } from './audit-records.js';

export {
  openMongoStore,
  databaseFromUrl,
  DEFAULT_MONGODB_DATABASE,
  type MongoStore,
  type MongoStoreOptions,
  type MongoTimeouts,
} from './mongo-store.js';
export { COLLECTIONS, INDEXES, ensureIndexes } from './collections.js';
export { POLICY_COLLECTIONS, POLICY_INDEXES, ensurePolicyIndexes } from './mongo-policy-collections.js';

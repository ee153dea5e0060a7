export {
  openMongoStore,
  databaseFromUrl,
  DEFAULT_MONGODB_DATABASE,
  type MongoStore,
  type MongoStoreOptions,
} from './mongo-store.js';
export { COLLECTIONS, INDEXES, ensureIndexes } from './collections.js';

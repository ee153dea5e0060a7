export { MONGODB_URL, MONGO_SKIP_REASON, describeWithMongo } from './mongo-env.js';
export { sqliteTarget, mongoTarget, uniqueDatabaseName, type StoreTarget, type RawAuditChanges } from './store-targets.js';
export { buildRecords, buildChain, headOf, type RecordSpec } from './audit-records.js';
export { connectRedis, removeRedisPrefix, REDIS_URL } from './test-redis.js';
export { listen, type HttpListener } from './http-listener.js';
export { newKeyRing, registerTenant, type TenantInfo } from './test-tenant.js';
export { assertServiceBuilt, MAIN, runService, type LogLine, type ServiceProcess } from './service-process.js';
export { createTestApp, type TestAppParts } from './test-app.js';
export { unusedPort } from './unused-port.js';

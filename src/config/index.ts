export { envSchema, detectionDefaults, DEFAULT_REDIS_URL, PROCESS_ROLES, LOG_LEVELS, type Config, type ProcessRole } from './env-schema.js';
export { loadConfig, ConfigError, settingOf } from './load-config.js';
export { withEnvFile, unknownNameWarnings, ENV_FILE_NAME, type Environment } from './env-file.js';
export { parseByteSize } from './byte-size.js';
export { storeLocation, describeStore, redactUrl, SQLITE_FILE_NAME, type StoreLocation } from './store-location.js';
export { redisConnection, describeRedis } from './redis-location.js';

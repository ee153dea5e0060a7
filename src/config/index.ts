export { envSchema, detectionDefaults, PROCESS_ROLES, LOG_LEVELS, type Config, type ProcessRole } from './env-schema.js';
export { loadConfig, ConfigError } from './load-config.js';
export { parseByteSize } from './byte-size.js';
export { parseJwtKeysSpec, MIN_JWT_SECRET_LENGTH, type JwtKeySpec } from './jwt-keys-spec.js';
export { storeLocation, redactUrl, SQLITE_FILE_NAME, type StoreLocation } from './store-location.js';
export { serviceVersion, type ServiceVersion } from './service-version.js';

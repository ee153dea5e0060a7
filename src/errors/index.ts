export { ClientError } from './client-error.js';
export { DEFAULT_RETRY_AFTER_SECONDS, DependencyUnavailableError } from './dependency-unavailable.js';

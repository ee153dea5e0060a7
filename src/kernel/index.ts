export { MAX_NAME_LENGTH } from './names.js';
export { TENANT_ID_PATTERN, isValidTenantId } from './tenant-id.js';
export { hasLoneSurrogate, wellFormedPrefix, wellFormedText } from './well-formed-text.js';

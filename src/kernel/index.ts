export { isName, MAX_NAME_LENGTH, nameSchema } from './names.js';
export { TENANT_ID_PATTERN, isValidTenantId } from './tenant-id.js';
export { hasLoneSurrogate, wellFormedPrefix, wellFormedText } from './well-formed-text.js';
export { pageView, type Page } from './page-envelope.js';
export { looksLikeServiceActor, SERVICE_ACTOR_PREFIXES } from './service-actors.js';

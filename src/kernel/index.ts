export { TENANT_ID_PATTERN, isValidTenantId } from './tenant-id.js';

export { TENANT_ID_PATTERN, isValidTenantId } from './tenant-id.js';
export { InvalidTenantIdError, TenantExistsError, TenantSecretsChangedError, UnknownTenantError } from './tenant-errors.js';
export {
  createTenantService,
  generateSigningSecret,
  type TenantRegistration,
  type TenantService,
  type TenantServiceOptions,
} from './tenant-service.js';

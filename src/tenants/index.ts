export { InvalidTenantIdError, TenantExistsError, TenantSecretsChangedError, UnknownTenantError } from './tenant-errors.js';
export {
  createTenantService,
  generateSigningSecret,
  type TenantRegistration,
  type TenantService,
  type TenantServiceOptions,
} from './tenant-service.js';
export type { SigningSecret, Tenant, TenantRepository } from './tenant-store.js';

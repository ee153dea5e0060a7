import { randomBytes } from 'node:crypto';
import { isValidTenantId } from '../kernel/index.js';
import { InvalidTenantIdError, TenantExistsError, TenantSecretsChangedError, UnknownTenantError } from './tenant-errors.js';
import type { SigningSecret, Tenant, TenantRepository } from './tenant-store.js';

export interface TenantRegistration {
  tenant: Tenant;
  secret: SigningSecret;
}

export interface TenantService {
  /** Creates the tenant with its first request-signing secret (version 1). */
  register(tenantId: string): Promise<TenantRegistration>;
  /**
   * Adds a new secret; the previous one stays valid until the next rotation. Throws
   * TenantSecretsChangedError when a concurrent rotation added the same version first.
   */
  rotateSecret(tenantId: string): Promise<SigningSecret>;
  /** The newest request-signing secret (the one clients should sign with); UnknownTenantError when absent. */
  currentSecret(tenantId: string): Promise<SigningSecret>;
}

export interface TenantServiceOptions {
  now?: () => Date;
  generateSecret?: () => string;
}

/** 256 random bits, URL-safe so it can sit in env files and shell variables unquoted. */
export function generateSigningSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function createTenantService(repo: TenantRepository, options: TenantServiceOptions = {}): TenantService {
  const now = options.now ?? (() => new Date());
  const generateSecret = options.generateSecret ?? generateSigningSecret;

  function assertValid(tenantId: string): void {
    if (!isValidTenantId(tenantId)) throw new InvalidTenantIdError(tenantId);
  }

  return {
    async register(tenantId) {
      assertValid(tenantId);
      const createdAt = now().toISOString();
      const tenant: Tenant = { tenantId, createdAt };
      const secret: SigningSecret = { version: 1, secret: generateSecret(), createdAt };
      if (!(await repo.create(tenant, secret))) throw new TenantExistsError(tenantId);
      return { tenant, secret };
    },

    async currentSecret(tenantId) {
      assertValid(tenantId);
      const [newest] = await repo.activeSecrets(tenantId);
      if (newest === undefined) throw new UnknownTenantError(tenantId);
      return newest;
    },

    async rotateSecret(tenantId) {
      assertValid(tenantId);
      if (!(await repo.get(tenantId))) throw new UnknownTenantError(tenantId);
      const [newest] = await repo.activeSecrets(tenantId);
      const secret: SigningSecret = {
        version: (newest?.version ?? 0) + 1,
        secret: generateSecret(),
        createdAt: now().toISOString(),
      };
      if (await repo.addSecret(tenantId, secret)) return secret;
      // addSecret refuses both an unknown tenant and a version already taken; tell them apart.
      if (!(await repo.get(tenantId))) throw new UnknownTenantError(tenantId);
      throw new TenantSecretsChangedError(tenantId, secret.version);
    },
  };
}

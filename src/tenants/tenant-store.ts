/** A registered tenant; its signing secrets are kept beside it (`TenantRepository`). */
export interface Tenant {
  tenantId: string;
  createdAt: string;
}

export interface SigningSecret {
  /** 1, 2, … in order of creation. */
  version: number;
  secret: string;
  createdAt: string;
}

export interface TenantRepository {
  /** Returns false when the tenant already exists (nothing changes). */
  create(tenant: Tenant, firstSecret: SigningSecret): Promise<boolean>;
  get(tenantId: string): Promise<Tenant | null>;
  /**
   * Adds a secret; only the two newest (highest versions) stay valid. Returns false for an unknown
   * tenant or when the tenant already has a secret with that version (nothing changes).
   */
  addSecret(tenantId: string, secret: SigningSecret): Promise<boolean>;
  /** The valid secrets, newest first (at most two). */
  activeSecrets(tenantId: string): Promise<SigningSecret[]>;
}

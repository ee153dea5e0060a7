import type { Database } from 'better-sqlite3';
import type { SigningSecret, Tenant, TenantRepository } from '../../tenants/tenant-store.js';
import { assertTenantId } from '../store-rules.js';

interface SecretRow {
  version: number;
  secret: string;
  created_at: string;
}

function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function createSqliteTenantRepository(db: Database): TenantRepository {
  const insertTenant = db.prepare('INSERT INTO tenants (tenant_id, created_at) VALUES (?, ?)');
  const insertSecret = db.prepare(
    'INSERT INTO tenant_secrets (tenant_id, version, secret, created_at) VALUES (?, ?, ?, ?)',
  );
  const selectTenant = db.prepare<[string], { tenant_id: string; created_at: string }>(
    'SELECT tenant_id, created_at FROM tenants WHERE tenant_id = ?',
  );
  const selectSecrets = db.prepare<[string], SecretRow>(
    'SELECT version, secret, created_at FROM tenant_secrets WHERE tenant_id = ? ORDER BY version DESC LIMIT 2',
  );

  const create = db.transaction((tenant: Tenant, secret: SigningSecret): boolean => {
    if (selectTenant.get(tenant.tenantId) !== undefined) return false;
    insertTenant.run(tenant.tenantId, tenant.createdAt);
    insertSecret.run(tenant.tenantId, secret.version, secret.secret, secret.createdAt);
    return true;
  });

  const addSecret = db.transaction((tenantId: string, secret: SigningSecret): boolean => {
    if (selectTenant.get(tenantId) === undefined) return false;
    try {
      insertSecret.run(tenantId, secret.version, secret.secret, secret.createdAt);
    } catch (error) {
      if (isConstraintError(error)) return false;
      throw error;
    }
    return true;
  });

  return {
    async create(tenant, firstSecret) {
      assertTenantId(tenant.tenantId);
      return create.immediate(tenant, firstSecret);
    },
    async get(tenantId) {
      assertTenantId(tenantId);
      const row = selectTenant.get(tenantId);
      return row === undefined ? null : { tenantId: row.tenant_id, createdAt: row.created_at };
    },
    async addSecret(tenantId, secret) {
      assertTenantId(tenantId);
      return addSecret.immediate(tenantId, secret);
    },
    async activeSecrets(tenantId) {
      assertTenantId(tenantId);
      return selectSecrets
        .all(tenantId)
        .map((row) => ({ version: row.version, secret: row.secret, createdAt: row.created_at }));
    },
  };
}

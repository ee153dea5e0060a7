/** Errors carry an HTTP status and a stable code so an API can expose them as they are. */
abstract class TenantError extends Error {
  readonly expose = true;
  abstract readonly status: number;
  abstract readonly code: string;
}

export class InvalidTenantIdError extends TenantError {
  override readonly name = 'InvalidTenantIdError';
  readonly status = 400;
  readonly code = 'ERR_TENANT_ID_INVALID';
  constructor(readonly tenantId: string) {
    super(`tenant id \`${tenantId}\` must be 1-64 characters of letters, digits, '_' or '-'`);
  }
}

export class TenantExistsError extends TenantError {
  override readonly name = 'TenantExistsError';
  readonly status = 409;
  readonly code = 'ERR_TENANT_EXISTS';
  constructor(readonly tenantId: string) {
    super(`tenant \`${tenantId}\` already exists`);
  }
}

export class UnknownTenantError extends TenantError {
  override readonly name = 'UnknownTenantError';
  readonly status = 404;
  readonly code = 'ERR_TENANT_UNKNOWN';
  constructor(readonly tenantId: string) {
    super(`tenant \`${tenantId}\` does not exist`);
  }
}

/**
 * Another rotation added the version this one was about to add. Nothing changed; rotating again
 * builds on the newer secret (README.md beside this file says why this is not retried silently).
 */
export class TenantSecretsChangedError extends TenantError {
  override readonly name = 'TenantSecretsChangedError';
  readonly status = 409;
  readonly code = 'ERR_TENANT_SECRETS_CHANGED';
  constructor(
    readonly tenantId: string,
    readonly version: number,
  ) {
    super(
      `the signing secrets of tenant \`${tenantId}\` changed concurrently (another rotation added version ${version}); nothing was added: retry the rotation`,
    );
  }
}

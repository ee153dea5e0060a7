/** The tenant header and every tenant id the service takes follow this pattern (Limits). */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidTenantId(value: string): boolean {
  return TENANT_ID_PATTERN.test(value);
}

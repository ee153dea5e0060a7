/** The tenant header and every stored tenant id follow this pattern (interface spec, Limits). */
export const TENANT_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function isValidTenantId(value: string): boolean {
  return TENANT_ID_PATTERN.test(value);
}

/**
 * A version or activation handed to the PolicyRepository that does not extend what is stored
 * (a gap in the numbering, a broken link to the predecessor, an unknown version).
 */
export class PolicyLogError extends Error {
  override readonly name = 'PolicyLogError';
  constructor(
    readonly tenantId: string,
    readonly policyModule: string,
    message: string,
  ) {
    super(`policy module \`${policyModule}\` of tenant \`${tenantId}\`: ${message}`);
  }
}

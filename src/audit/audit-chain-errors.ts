/** A batch handed to `AuditChainRepository.insertBatch` that does not extend the stored chain. */
export class AuditBatchError extends Error {
  override readonly name = 'AuditBatchError';
  constructor(
    readonly tenantId: string,
    readonly seq: number,
    message: string,
  ) {
    super(`audit batch for tenant \`${tenantId}\` rejected at seq ${seq}: ${message}`);
  }
}

/** A stored audit record that cannot be read back (for example its payload is not JSON). */
export class AuditRecordCorruptError extends Error {
  override readonly name = 'AuditRecordCorruptError';
  constructor(
    readonly tenantId: string,
    readonly seq: number,
    readonly detail: string,
  ) {
    super(`audit record ${seq} of tenant \`${tenantId}\` is unreadable: ${detail}`);
  }
}

/** A batch handed to `AuditLinkRepository.link` whose records are not consecutive and linked to each other. */
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

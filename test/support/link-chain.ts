import type { AuditLinkRepository, AuditRecord } from '../../src/audit/index.js';

/** Records per link: what a linker writes at most by default. */
const LINK_SIZE = 500;
const SEEDER = 'test-seeder';

/**
 * Writes prebuilt records (audit-records.ts) into the tenant's chain the one way records enter it:
 * under the tenant's linker lease, a link at a time, each extending the head. For a chain of a
 * given shape or length without recording its events one by one. Throws when another holder has
 * the lease or when the records do not extend the tenant's head.
 */
export async function linkChain(store: { auditLinks: AuditLinkRepository }, tenantId: string, records: readonly AuditRecord[]): Promise<void> {
  const now = new Date();
  const lease = await store.auditLinks.takeLease(tenantId, SEEDER, new Date(now.getTime() + 600_000).toISOString(), now.toISOString());
  if (lease === null) throw new Error(`another holder has the linker lease of tenant ${tenantId}`);
  try {
    for (let from = 0; from < records.length; from += LINK_SIZE) {
      if (!(await store.auditLinks.link(tenantId, lease, records.slice(from, from + LINK_SIZE)))) {
        throw new Error(`records from seq ${records[from]!.seq} do not extend the chain of tenant ${tenantId}`);
      }
    }
  } finally {
    await store.auditLinks.releaseLease(tenantId, lease);
  }
}

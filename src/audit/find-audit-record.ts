import type { AuditChainRepository, AuditRecord } from './audit-chain-store.js';
import type { AuditLinkRepository, UnlinkedAuditRecord } from './audit-link-store.js';

export type FoundAuditRecord = { linked: true; record: AuditRecord } | { linked: false; record: UnlinkedAuditRecord };

export interface AuditRecordSources {
  chain: Pick<AuditChainRepository, 'findById'>;
  links: Pick<AuditLinkRepository, 'findUnlinked'>;
}

/**
 * A tenant's record by id, linked or still waiting for its link. The unlinked records are asked
 * first: a link writes the chain before it removes the unlinked record, so a record moving between
 * the two reads is found in one of them.
 */
export async function findAuditRecord({ chain, links }: AuditRecordSources, tenantId: string, id: string): Promise<FoundAuditRecord | null> {
  const unlinked = await links.findUnlinked(tenantId, id);
  if (unlinked !== null) return { linked: false, record: unlinked };
  const linked = await chain.findById(tenantId, id);
  return linked === null ? null : { linked: true, record: linked };
}

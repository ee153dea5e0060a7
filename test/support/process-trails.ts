import { createAuditTrail, type AuditLinkRepository, type AuditTrail, type AuditTrailOptions } from '../../src/audit/index.js';

export interface ProcessTrails {
  /** The audit trail of one more process. */
  open(repository: AuditLinkRepository, options?: AuditTrailOptions): AuditTrail;
  /** Resolves once every append made so far, in any of the processes, is stored and linked. */
  linked(): Promise<void>;
  /** Closes every trail opened. */
  close(): Promise<void>;
}

/**
 * The audit trails of the processes a test runs side by side. A process whose linker finds a
 * tenant's lease held by another tells the others of the records it stored, as the service's
 * processes do over Redis (src/audit/link-notices.ts), so the holder links them.
 */
export function createProcessTrails(): ProcessTrails {
  const trails: AuditTrail[] = [];
  return {
    open(repository, options = {}) {
      const trail: AuditTrail = createAuditTrail(repository, {
        ...options,
        linker: {
          ...options.linker,
          onHeldElsewhere: (tenantId) => {
            for (const other of trails) if (other !== trail) other.linker.notify(tenantId, { heard: true });
          },
        },
      });
      trails.push(trail);
      return trail;
    },
    async linked() {
      // Storing may tell a holder already flushed of records to link: its linker is waited for again.
      for (const trail of trails) await trail.flush();
      for (const trail of trails) await trail.linker.settled();
    },
    async close() {
      for (const trail of trails.splice(0)) await trail.close();
    },
  };
}

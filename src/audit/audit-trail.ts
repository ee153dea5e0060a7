import { createAuditLinker, type AuditLinker, type AuditLinkerOptions } from './audit-linker.js';
import type { AuditLinkRepository } from './audit-link-store.js';
import { createAuditRecorder, type AuditRecorder, type AuditRecorderOptions } from './audit-recorder.js';

/** A recorder whose stored records go straight to this process's linker. */
export interface AuditTrail {
  recorder: AuditRecorder;
  linker: AuditLinker;
  /** Resolves when every append made before it is stored and linked as far as this process links. */
  flush(): Promise<void>;
  /** Flushes, refuses further appends, ends the linker and gives its leases back. */
  close(): Promise<void>;
}

export interface AuditTrailOptions {
  recorder?: Omit<AuditRecorderOptions, 'onStored' | 'linkAtOnce'>;
  linker?: AuditLinkerOptions;
}

/**
 * The one way records flow in a process: stored by the recorder, then linked by the linker, which
 * hears of every insert at once (on one machine, the link follows the insert by a turn of the event
 * loop; elsewhere, the tenant's holder is told or its sweep finds them). Where the store links in one
 * write, the process holding a tenant's lease stores its records linked: one write, not two.
 */
export function createAuditTrail(repository: AuditLinkRepository, options: AuditTrailOptions = {}): AuditTrail {
  const linker = createAuditLinker(repository, options.linker);
  const recorder = createAuditRecorder(repository, {
    ...options.recorder,
    onStored: (tenantIds) => {
      for (const tenantId of tenantIds) linker.notify(tenantId);
    },
    // The linker answers false at once where the store links in several writes.
    linkAtOnce: (tenantId, records) => linker.linkAtOnce(tenantId, records),
  });
  return {
    recorder,
    linker,
    async flush() {
      await recorder.flush();
      await linker.settled();
    },
    async close() {
      await recorder.close();
      await linker.stop();
    },
  };
}

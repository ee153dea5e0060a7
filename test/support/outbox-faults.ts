import type { AuditChainRepository } from '../../src/audit/index.js';

/**
 * What the audit outbox tests inject: one clock for every process in a test (so a claim ends
 * without waiting), and store failures raised by wrapping a repository.
 */

export function testClock(start: number) {
  let time = start;
  return { now: () => new Date(time), advance: (ms: number) => void (time += ms) };
}

export class InjectedFailure extends Error {
  override readonly name = 'InjectedFailure';
}

/** An audit repository whose inserts holding a record of `eventType` fail `times` times (a store blip). */
export function auditFailing(repository: AuditChainRepository, eventType: string, times = 1): AuditChainRepository {
  let left = times;
  return {
    ...repository,
    async insertBatch(tenantId, records) {
      if (left > 0 && records.some((r) => r.eventType === eventType)) {
        left -= 1;
        throw new InjectedFailure(`audit insert of ${eventType} failed`);
      }
      return repository.insertBatch(tenantId, records);
    },
  };
}

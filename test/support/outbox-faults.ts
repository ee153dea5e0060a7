import type { AuditLinkRepository } from '../../src/audit/index.js';

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

/**
 * A repository whose stores of records holding one of `eventType` fail `times` times (a store blip):
 * the appends waiting for that write fail, as when the store refuses it.
 */
export function auditFailing(repository: AuditLinkRepository, eventType: string, times = 1): AuditLinkRepository {
  let left = times;
  return {
    ...repository,
    async storeUnlinked(entries) {
      if (left > 0 && entries.some(({ record }) => record.eventType === eventType)) {
        left -= 1;
        throw new InjectedFailure(`audit insert of ${eventType} failed`);
      }
      return repository.storeUnlinked(entries);
    },
  };
}

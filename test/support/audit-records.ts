import { randomUUID } from 'node:crypto';
import {
  computeAuditContentHash,
  computeAuditHash,
  GENESIS_PREVIOUS_HASH,
  type AuditRecord,
  type ChainHead,
  type UnlinkedAuditRecord,
} from '../../src/audit/index.js';

export interface RecordSpec {
  eventType?: string;
  policyModule?: string | null;
  policyFunction?: string | null;
  actorId?: string;
  occurredAt?: string;
  payload?: Record<string, unknown>;
}

/**
 * Correctly hashed records continuing `head` (or starting a chain), one per spec. Times default to
 * one second apart from 2026-01-01T00:00:00.000Z + seq seconds, so order by time equals order by seq.
 */
export function buildRecords(head: ChainHead | null, specs: readonly RecordSpec[]): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let previousHash = head?.hash ?? GENESIS_PREVIOUS_HASH;
  return specs.map((spec) => {
    seq += 1;
    const content = {
      id: randomUUID(),
      seq,
      eventType: spec.eventType ?? 'POLICY_EVALUATED',
      policyModule: spec.policyModule === undefined ? 'com.example.lending' : spec.policyModule,
      policyFunction: spec.policyFunction === undefined ? 'eligible' : spec.policyFunction,
      actorId: spec.actorId ?? 'user-1',
      occurredAt: spec.occurredAt ?? new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
      payload: spec.payload ?? { n: seq },
      previousHash,
    };
    const record = { ...content, hash: computeAuditHash(content) };
    previousHash = record.hash;
    return record;
  });
}

/** `count` default records continuing `head`. */
export function buildChain(head: ChainHead | null, count: number): AuditRecord[] {
  return buildRecords(head, Array.from({ length: count }, () => ({})));
}

export function headOf(records: readonly AuditRecord[]): ChainHead {
  const last = records[records.length - 1];
  if (last === undefined) throw new Error('no records');
  return { seq: last.seq, hash: last.hash };
}

/** Records as the answering process stores them (content hash, no place in the chain), one per spec. */
export function buildUnlinked(specs: readonly (RecordSpec & { storedAt?: string })[]): UnlinkedAuditRecord[] {
  return specs.map((spec, i) => {
    const id = randomUUID();
    const event = {
      eventType: spec.eventType ?? 'POLICY_EVALUATED',
      policyModule: spec.policyModule === undefined ? 'com.example.lending' : spec.policyModule,
      policyFunction: spec.policyFunction === undefined ? 'eligible' : spec.policyFunction,
      actorId: spec.actorId ?? 'user-1',
      occurredAt: spec.occurredAt ?? new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      payload: spec.payload ?? { n: i },
    };
    return { id, ...event, contentHash: computeAuditContentHash(id, event), storedAt: spec.storedAt ?? '2026-06-01T00:00:00.000Z' };
  });
}

/** The chain records a linker makes of `unlinked` on top of `head`, in the order given. */
export function linkOn(head: ChainHead | null, unlinked: readonly UnlinkedAuditRecord[]): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let previousHash = head?.hash ?? GENESIS_PREVIOUS_HASH;
  return unlinked.map(({ contentHash: _c, storedAt: _s, ...content }) => {
    seq += 1;
    const linked = { ...content, seq, previousHash };
    const record = { ...linked, hash: computeAuditHash(linked) };
    previousHash = record.hash;
    return record;
  });
}

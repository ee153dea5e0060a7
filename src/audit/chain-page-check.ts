import type { AuditRecordCorruptError } from './audit-chain-errors.js';
import { GENESIS_PREVIOUS_HASH, type AuditRecord } from './audit-chain-store.js';
import { computeAuditHash } from './audit-hash.js';

/** A point of a walk along a chain: the last record found intact. */
export interface ChainPosition {
  seq: number;
  hash: string;
}

/** Where every walk from the beginning starts: before seq 1, whose previousHash is the genesis hash. */
export const CHAIN_START: ChainPosition = { seq: 0, hash: GENESIS_PREVIOUS_HASH };

export interface ChainProblem {
  seq: number;
  reason: string;
}

export interface PageCheck {
  /** The last record found intact: the page's last record, the one before the problem, or `from` itself. */
  reached: ChainPosition;
  /** The first problem of the page, or null when every record is intact. */
  problem: ChainProblem | null;
}

/** What a walk checks of each record besides its content: its place in the chain. */
export type ChainLinks = Pick<AuditRecord, 'seq' | 'previousHash' | 'hash'>;

/** A record whose previousHash is not the hash of the record before it. */
export function brokenLink(seq: number): ChainProblem {
  const link = seq === 1 ? 'the genesis hash' : `the hash of seq ${seq - 1}`;
  return { seq, reason: `previousHash does not match ${link}` };
}

/** A record the store cannot read: a walk ends there. */
export function unreadableRecord(error: AuditRecordCorruptError): ChainProblem {
  return { seq: error.seq, reason: `record is unreadable: ${error.detail}` };
}

/**
 * checkChainPage's rules for records in any form: `contentHash` computes the hash of the record at
 * that index of the page from its content, and throws when the content has no canonical form.
 */
export function checkChainLinks<R extends ChainLinks>(records: readonly R[], from: ChainPosition, contentHash: (record: R, index: number) => string): PageCheck {
  let reached = from;
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    const expectedSeq = reached.seq + 1;
    if (record.seq !== expectedSeq) {
      return { reached, problem: { seq: expectedSeq, reason: `seq ${expectedSeq} is missing (the next stored record is seq ${record.seq})` } };
    }
    if (record.previousHash !== reached.hash) return { reached, problem: brokenLink(record.seq) };
    let computed: string;
    try {
      computed = contentHash(record, index);
    } catch (error) {
      return { reached, problem: { seq: record.seq, reason: `record content cannot be hashed: ${(error as Error).message}` } };
    }
    if (computed !== record.hash) return { reached, problem: { seq: record.seq, reason: 'hash does not match the record content' } };
    reached = { seq: record.seq, hash: record.hash };
  }
  return { reached, problem: null };
}

/**
 * Checks records read in seq order after `from`: seqs continue without a gap, each `previousHash`
 * is the hash of the record before, and each `hash` matches the record's content. Stops at the first
 * problem. Pure, so it runs wherever the hashing should cost (a thread for the API).
 */
export function checkChainPage(records: readonly AuditRecord[], from: ChainPosition): PageCheck {
  return checkChainLinks(records, from, computeAuditHash);
}

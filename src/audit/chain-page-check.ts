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

/**
 * Checks records read in seq order after `from`: seqs continue without a gap, each `previousHash`
 * is the hash of the record before, and each `hash` matches the record's content. Stops at the first
 * problem. Pure, so it runs wherever the hashing should cost (a thread for the API).
 */
export function checkChainPage(records: readonly AuditRecord[], from: ChainPosition): PageCheck {
  let reached = from;
  for (const record of records) {
    const expectedSeq = reached.seq + 1;
    if (record.seq !== expectedSeq) {
      return { reached, problem: { seq: expectedSeq, reason: `seq ${expectedSeq} is missing (the next stored record is seq ${record.seq})` } };
    }
    if (record.previousHash !== reached.hash) {
      const link = record.seq === 1 ? 'the genesis hash' : `the hash of seq ${record.seq - 1}`;
      return { reached, problem: { seq: record.seq, reason: `previousHash does not match ${link}` } };
    }
    let computed: string;
    try {
      computed = computeAuditHash(record);
    } catch (error) {
      return { reached, problem: { seq: record.seq, reason: `record content cannot be hashed: ${(error as Error).message}` } };
    }
    if (computed !== record.hash) return { reached, problem: { seq: record.seq, reason: 'hash does not match the record content' } };
    reached = { seq: record.seq, hash: record.hash };
  }
  return { reached, problem: null };
}

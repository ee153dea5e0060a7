import { AuditRecordCorruptError, GENESIS_PREVIOUS_HASH, type AuditChainRepository } from '../store/index.js';
import { computeAuditHash } from './audit-hash.js';

export interface VerifyChainProgress {
  checked: number;
  /** Head seq when verification started (raised to `checked` if appends arrive meanwhile). */
  total: number;
}

export interface VerifyChainOptions {
  /** Records read per query; memory stays bounded by one page. Default 1000. */
  pageSize?: number;
  /** Called once before reading, after each page, and once at the end. */
  onProgress?: (progress: VerifyChainProgress) => void;
}

export interface ChainVerification {
  valid: boolean;
  /** Records found intact, in order, before the first problem (all of them when valid). */
  checked: number;
  /** The head the store reported when verification started (0 and null for an empty chain). */
  headSeq: number;
  headHash: string | null;
  firstInvalidSeq: number | null;
  reason: string | null;
}

/**
 * Walks every stored record of a tenant's chain from seq 1 and checks seq continuity, every
 * previousHash link and every hash. Stops at the first problem. The head is read only for progress
 * and the report: a store's head may be misled by a deleted record, so the walk goes to the last
 * stored record (including any appended meanwhile) and never stops at the head.
 */
export async function verifyChain(
  repository: AuditChainRepository,
  tenantId: string,
  options: VerifyChainOptions = {},
): Promise<ChainVerification> {
  const pageSize = options.pageSize ?? 1000;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError('pageSize must be a positive integer');
  const head = await repository.head(tenantId);
  const headSeq = head?.seq ?? 0;
  const report = (checked: number) => options.onProgress?.({ checked, total: Math.max(headSeq, checked) });
  const result = (checked: number, firstInvalidSeq: number | null, reason: string | null): ChainVerification => ({
    valid: firstInvalidSeq === null,
    checked,
    headSeq,
    headHash: head?.hash ?? null,
    firstInvalidSeq,
    reason,
  });

  let expectedSeq = 1;
  let previousHash = GENESIS_PREVIOUS_HASH;
  let checked = 0;
  report(0);
  try {
    for await (const record of repository.scan(tenantId, 1, pageSize)) {
      if (record.seq !== expectedSeq) {
        return result(checked, expectedSeq, `seq ${expectedSeq} is missing (the next stored record is seq ${record.seq})`);
      }
      if (record.previousHash !== previousHash) {
        const link = record.seq === 1 ? 'the genesis hash' : `the hash of seq ${record.seq - 1}`;
        return result(checked, record.seq, `previousHash does not match ${link}`);
      }
      let computed: string;
      try {
        computed = computeAuditHash(record);
      } catch (error) {
        return result(checked, record.seq, `record content cannot be hashed: ${(error as Error).message}`);
      }
      if (computed !== record.hash) return result(checked, record.seq, 'hash does not match the record content');
      previousHash = record.hash;
      expectedSeq += 1;
      checked += 1;
      if (checked % pageSize === 0) report(checked);
    }
  } catch (error) {
    if (error instanceof AuditRecordCorruptError && error.tenantId === tenantId) {
      return result(checked, error.seq, `record is unreadable: ${error.detail}`);
    }
    throw error;
  }
  if (checked < headSeq) return result(checked, expectedSeq, `seq ${expectedSeq} is missing`);
  report(checked);
  return result(checked, null, null);
}

import { AuditRecordCorruptError } from './audit-chain-errors.js';
import type { AuditChainRepository, AuditRecord, ChainHead } from './audit-chain-store.js';
import { CHAIN_START, checkChainPage, unreadableRecord, type ChainPosition, type PageCheck } from './chain-page-check.js';

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

/** Checks one page of records read after `from` (checkChainPage, here or on a thread). */
export type PageChecker = (records: AuditRecord[], from: ChainPosition) => PageCheck | Promise<PageCheck>;

export interface WalkChainOptions {
  pageSize: number;
  check: PageChecker;
  /** Called after each full page found intact, with the last record reached. */
  onPage?: (reached: ChainPosition) => void;
}

/**
 * Reads a tenant's records after `from` in pages, each checked by `options.check` before the next
 * is read, up to the last stored record (including any appended meanwhile); stops at the first
 * problem. A record the store cannot read is a problem at its seq.
 */
export async function walkChain(
  repository: Pick<AuditChainRepository, 'scan'>,
  tenantId: string,
  from: ChainPosition,
  options: WalkChainOptions,
): Promise<PageCheck> {
  let reached = from;
  let page: AuditRecord[] = [];
  const checkPage = async (): Promise<PageCheck> => {
    const checked = await options.check(page, reached);
    page = [];
    reached = checked.reached;
    return checked;
  };
  try {
    for await (const record of repository.scan(tenantId, from.seq + 1, options.pageSize)) {
      page.push(record);
      if (page.length < options.pageSize) continue;
      const checked = await checkPage();
      if (checked.problem !== null) return checked;
      options.onPage?.(reached);
    }
  } catch (error) {
    if (!(error instanceof AuditRecordCorruptError && error.tenantId === tenantId)) throw error;
    // The records read before the unreadable one may hold an earlier problem.
    if (page.length > 0) {
      const checked = await checkPage();
      if (checked.problem !== null) return checked;
    }
    return { reached, problem: unreadableRecord(error) };
  }
  return page.length === 0 ? { reached, problem: null } : checkPage();
}

/**
 * The answer for a walk that began at the start of the chain or at a verified record: a walk that
 * ends short of the head read before it found a record missing.
 */
export function chainReport(head: ChainHead | null, walked: PageCheck): ChainVerification {
  const headSeq = head?.seq ?? 0;
  const next = walked.reached.seq + 1;
  const problem = walked.problem ?? (walked.reached.seq < headSeq ? { seq: next, reason: `seq ${next} is missing` } : null);
  return {
    valid: problem === null,
    checked: walked.reached.seq,
    headSeq,
    headHash: head?.hash ?? null,
    firstInvalidSeq: problem?.seq ?? null,
    reason: problem?.reason ?? null,
  };
}

/**
 * Walks every stored record of a tenant's chain from seq 1 and checks seq continuity, every
 * previousHash link and every hash, on the caller's thread (the offline verifier; the API uses
 * createChainVerifier). Stops at the first problem. The head is read only for progress and the
 * report: a store's head may be misled by a deleted record, so the walk goes to the last stored
 * record (including any appended meanwhile) and never stops at the head.
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
  report(0);
  const walked = await walkChain(repository, tenantId, CHAIN_START, { pageSize, check: checkChainPage, onPage: (reached) => report(reached.seq) });
  const verification = chainReport(head, walked);
  if (verification.valid) report(verification.checked);
  return verification;
}

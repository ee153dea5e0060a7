import { LRUCache } from 'lru-cache';
import { DependencyUnavailableError } from '../errors/index.js';
import { AuditRecordCorruptError } from './audit-chain-errors.js';
import type { AuditChainRepository, AuditRecord, ChainHead } from './audit-chain-store.js';
import { computeAuditHash } from './audit-hash.js';
import { CHAIN_START, type ChainPosition, type PageCheck } from './chain-page-check.js';
import { walkStoredChain, type StoredPageReads } from './stored-chain-walk.js';
import { chainReport, walkChain, type ChainVerification, type PageChecker } from './verify-chain.js';

export interface ChainVerifierOptions {
  records: Pick<AuditChainRepository, 'head' | 'scan' | 'pageSource'>;
  /** Checks a page of records off the caller's event loop (createChainPageThreads). */
  check: PageChecker;
  /**
   * Reads and checks pages on threads (createChainPageThreads) for a store that names a source
   * threads can read (`pageSource`); the others' pages are read here and handed to `check`.
   */
  storedPages?: StoredPageReads;
  /** Walks running at once in this process, each for another tenant; the others wait their turn in arrival order. */
  concurrency: number;
  /** A verification walks the whole chain again once the tenant's last whole walk is this old. */
  fullIntervalMs: number;
  /** Records read and hashed per step (per thread's step with `storedPages`); the event loop is free between steps. Default 500. */
  pageSize?: number;
  /** Tenants whose verified prefix is kept (least recently verified forgotten first). Default 10,000. */
  maxTenants?: number;
  now?: () => number;
}

export interface ChainVerifier {
  /**
   * The tenant's chain verified up to its last stored record. Only records after the tenant's
   * verified prefix are read and hashed (an unchanged head answers at once), unless `full` asks, or
   * `fullIntervalMs` calls, for a walk from seq 1. Concurrent calls of one tenant share one walk.
   */
  verify(tenantId: string, options?: { full?: boolean }): Promise<ChainVerification>;
  /**
   * For a stopping process: walks end at their next page and every verification from now on is
   * refused (503), so no walk of a long chain holds the process after its connections are closed.
   */
  close(): void;
}

/** The last record a verification found intact, all records before it with it. */
interface VerifiedPrefix extends ChainPosition {
  /** When the last walk from seq 1 began (ms since the epoch). */
  fullAt: number;
}

interface Walk {
  tenantId: string;
  /** From seq 1; may still be raised while the walk waits for its turn. */
  full: boolean;
  result: Promise<ChainVerification>;
  begin(): void;
}

/** A head the store could not find, because a record it had seen is gone. */
class Gone {
  constructor(
    readonly seq: number,
    readonly detail: string,
  ) {}
}

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_MAX_TENANTS = 10_000;

/**
 * Verifies tenants' chains for the API: the hashing runs on threads, store reads come in pages
 * between which the event loop answers other requests, one walk per tenant at a time, at most
 * `concurrency` walks at once shared in turn between tenants, and each tenant's verified prefix kept
 * so that a later verification reads only what was appended since (see src/audit/README.md for what
 * a kept prefix can and cannot see).
 */
export function createChainVerifier(options: ChainVerifierOptions): ChainVerifier {
  const { records, check, concurrency, fullIntervalMs } = options;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const prefixes = new LRUCache<string, VerifiedPrefix>({ max: options.maxTenants ?? DEFAULT_MAX_TENANTS });
  const tenants = new Map<string, { running?: Walk; waiting?: Walk }>();
  /** Walks waiting for a turn, oldest first; a tenant has at most one here. */
  const turns: Walk[] = [];
  let walking = 0;
  let closed = false;
  const stopping = () => new DependencyUnavailableError('the audit chain verifier (the service is stopping)');
  // Every page of every walk is checked through here, so a closed verifier ends its walks there.
  const checkOpen: PageChecker = (pageRecords, from) => {
    if (closed) throw stopping();
    return check(pageRecords, from);
  };
  // Pages read on threads are in flight ahead of the walk: one that answers after close ends it too.
  const { storedPages } = options;
  const storedPagesOpen: StoredPageReads | undefined = storedPages && {
    threads: storedPages.threads,
    readAndCheck: async (task) => {
      if (closed) throw stopping();
      const page = await storedPages.readAndCheck(task);
      if (closed) throw stopping();
      return page;
    },
  };

  /** The records after `from` walked up to the last stored one: read on the threads where the store lets them. */
  function walkAfter(tenantId: string, from: ChainPosition, onPage?: (reached: ChainPosition) => void): Promise<PageCheck> {
    const source = storedPagesOpen === undefined ? null : records.pageSource();
    const walkOptions = onPage ? { pageSize, onPage } : { pageSize };
    if (storedPagesOpen !== undefined && source !== null) return walkStoredChain(source, tenantId, from, { ...walkOptions, reads: storedPagesOpen });
    return walkChain(records, tenantId, from, { ...walkOptions, check: checkOpen });
  }

  const dueFull = (prefix: VerifiedPrefix) => now() - prefix.fullAt >= fullIntervalMs;
  const isHead = (head: ChainHead | null, prefix: VerifiedPrefix) => head !== null && head.seq === prefix.seq && head.hash === prefix.hash;

  function remember(tenantId: string, reached: ChainPosition, fullAt: number): void {
    if (reached.seq === 0) prefixes.delete(tenantId);
    else prefixes.set(tenantId, { seq: reached.seq, hash: reached.hash, fullAt });
  }

  /** The head, or which record the store found gone while looking for it (records are never deleted). */
  async function headOf(tenantId: string): Promise<ChainHead | Gone | null> {
    try {
      return await records.head(tenantId);
    } catch (error) {
      if (error instanceof AuditRecordCorruptError && error.tenantId === tenantId) return new Gone(error.seq, error.detail);
      throw error;
    }
  }

  async function recordAt(tenantId: string, seq: number): Promise<AuditRecord | null> {
    try {
      for await (const record of records.scan(tenantId, seq, 1)) return record.seq === seq ? record : null;
    } catch (error) {
      if (!(error instanceof AuditRecordCorruptError)) throw error;
    }
    return null;
  }

  /** Whether the prefix's last record is stored as it was verified (content included). */
  async function stillHolds(tenantId: string, prefix: VerifiedPrefix): Promise<boolean> {
    const record = await recordAt(tenantId, prefix.seq);
    if (record === null || record.hash !== prefix.hash) return false;
    try {
      return computeAuditHash(record) === prefix.hash;
    } catch {
      return false;
    }
  }

  /**
   * What a whole walk that found the chain consistent up to `witness.seq` still owes: that chain must
   * hold the record verified earlier. Null when it does, or when the walk stopped at a problem first.
   */
  async function contradiction(tenantId: string, witness: VerifiedPrefix, walked: PageCheck): Promise<PageCheck | null> {
    if (walked.problem !== null && walked.problem.seq <= witness.seq) return null;
    if (walked.reached.seq < witness.seq) {
      const seq = walked.reached.seq + 1;
      return { reached: walked.reached, problem: { seq, reason: `seq ${seq} is missing: the chain reached seq ${witness.seq} when it was verified before` } };
    }
    const record = await recordAt(tenantId, witness.seq);
    if (record !== null && record.hash === witness.hash) return null;
    return {
      reached: { seq: witness.seq - 1, hash: record?.previousHash ?? '' },
      problem: { seq: witness.seq, reason: `the hash of seq ${witness.seq} is not the one verified before: the chain was rewritten at or before it` },
    };
  }

  async function walkWhole(tenantId: string, head: ChainHead | Gone | null, witness: VerifiedPrefix | undefined): Promise<ChainVerification> {
    const fullAt = now();
    // A first walk keeps its progress as it goes; one that must also confirm an earlier prefix only
    // at the end, so that a contradiction keeps that prefix and is reported again next time.
    const onPage = witness === undefined ? (reached: ChainPosition) => remember(tenantId, reached, fullAt) : undefined;
    const walked = await walkAfter(tenantId, CHAIN_START, onPage);
    const reported = head instanceof Gone ? null : head;
    const contradicted = witness === undefined ? null : await contradiction(tenantId, witness, walked);
    if (contradicted !== null) return chainReport(reported, contradicted);
    if (head instanceof Gone && walked.problem === null && walked.reached.seq < head.seq) {
      const seq = walked.reached.seq + 1;
      return chainReport(reported, { reached: walked.reached, problem: { seq, reason: `seq ${seq} is missing: ${head.detail}` } });
    }
    remember(tenantId, walked.reached, fullAt);
    return chainReport(reported, walked);
  }

  async function walk(tenantId: string, full: boolean): Promise<ChainVerification> {
    const head = await headOf(tenantId);
    const known = prefixes.get(tenantId);
    if (full || known === undefined || dueFull(known) || head instanceof Gone) return walkWhole(tenantId, head, known);
    // The prefix's last record changed or went away: only a whole walk can say where the chain broke.
    if (!(await stillHolds(tenantId, known))) return walkWhole(tenantId, head, known);
    if (isHead(head, known)) return chainReport(head, { reached: known, problem: null });
    const keep = (reached: ChainPosition) => remember(tenantId, reached, known.fullAt);
    const walked = await walkAfter(tenantId, known, keep);
    keep(walked.reached);
    return chainReport(head, walked);
  }

  function startTurns(): void {
    while (walking < concurrency && turns.length > 0) {
      const next = turns.shift()!;
      const state = tenants.get(next.tenantId)!;
      state.waiting = undefined;
      state.running = next;
      walking += 1;
      const done = () => finished(next);
      next.result.then(done, done);
      next.begin();
    }
  }

  function finished(done: Walk): void {
    walking -= 1;
    const state = tenants.get(done.tenantId)!;
    state.running = undefined;
    // Behind every tenant already waiting: turns go round.
    if (state.waiting !== undefined) turns.push(state.waiting);
    else tenants.delete(done.tenantId);
    startTurns();
  }

  function share(tenantId: string, full: boolean): Promise<ChainVerification> {
    let state = tenants.get(tenantId);
    if (state === undefined) {
      state = {};
      tenants.set(tenantId, state);
    }
    if (state.waiting !== undefined) {
      state.waiting.full ||= full;
      return state.waiting.result;
    }
    if (state.running !== undefined && (state.running.full || !full)) return state.running.result;
    let begin!: () => void;
    const next: Walk = { tenantId, full, begin: () => begin(), result: undefined as never };
    next.result = new Promise<void>((resolve) => (begin = resolve)).then(() => walk(tenantId, next.full));
    state.waiting = next;
    if (state.running === undefined) {
      turns.push(next);
      startTurns();
    }
    return next.result;
  }

  return {
    async verify(tenantId, verifyOptions = {}) {
      if (closed) throw stopping();
      const full = verifyOptions.full === true;
      const known = prefixes.get(tenantId);
      // An unchanged head needs no turn: two indexed reads and one hash answer it.
      if (!full && !tenants.has(tenantId) && known !== undefined && !dueFull(known)) {
        const head = await headOf(tenantId);
        if (!(head instanceof Gone) && isHead(head, known) && (await stillHolds(tenantId, known)) && prefixes.get(tenantId) === known) {
          return chainReport(head, { reached: known, problem: null });
        }
      }
      return share(tenantId, full);
    },
    close() {
      closed = true;
    },
  };
}

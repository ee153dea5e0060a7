import { randomUUID } from 'node:crypto';
import { GENESIS_PREVIOUS_HASH, type AuditChainRepository, type AuditRecord, type ChainHead } from './audit-chain-store.js';
import { assertAuditTenantId, AuditEventError, normaliseAuditEvent, type AuditEvent, type NormalisedAuditEvent } from './audit-event.js';
import { computeAuditHash } from './audit-hash.js';

export interface AuditChainWriterOptions {
  /** Most records in one insert. Default 100. */
  batchSize?: number;
  /**
   * How long a lone append waits for others to share its insert. Default 0: the next turn of the
   * event loop, so appends made in the same turn share one insert and, while an insert is in
   * flight, later appends gather for the next (group commit) without adding a fixed delay.
   */
  flushIntervalMs?: number;
  /** Lost races tolerated for one batch before its appends fail. Default 1000. */
  maxConflicts?: number;
  /** Upper bound of the random pause after a lost race grows by this per conflict (capped at 8×). Default 2 ms. */
  conflictBackoffMs?: number;
  /**
   * True when an insert's error means the store is away or not answering. Only then are the appends
   * queued behind the refused batch failed with it (they would wait on the same store); after any
   * other error they are written in their turn. Default: never.
   */
  isUnavailable?: (error: unknown) => boolean;
  now?: () => Date;
  newId?: () => string;
}

export interface AuditChainWriterStats {
  /** Records this writer stored. */
  appended: number;
  /** insertBatch calls. */
  batches: number;
  /** Inserts that stopped short because another writer had taken the seq. */
  conflicts: number;
}

export interface AuditAppendOptions {
  /**
   * The record's id instead of a new UUID: for a record whose id is fixed beforehand (an owed
   * record, looked up by id before it is written again). The writer does not check that
   * the id is unused; its caller makes sure of that.
   */
  id?: string;
}

export interface AuditChainWriter {
  /** Queues the event; resolves with the stored record once it is in the chain. */
  append(tenantId: string, event: AuditEvent, options?: AuditAppendOptions): Promise<AuditRecord>;
  /** Resolves when every append made before the call has settled. */
  flush(): Promise<void>;
  /** Flushes, then refuses further appends. */
  close(): Promise<void>;
  stats(): AuditChainWriterStats;
}

export class AuditWriterClosedError extends Error {
  override readonly name = 'AuditWriterClosedError';
  constructor() {
    super('audit chain writer is closed');
  }
}

export class AuditChainContentionError extends Error {
  override readonly name = 'AuditChainContentionError';
  constructor(tenantId: string, conflicts: number) {
    super(`audit chain of tenant \`${tenantId}\`: gave up after losing ${conflicts} races to other writers`);
  }
}

interface PendingAppend {
  id: string;
  event: NormalisedAuditEvent;
  promise: Promise<AuditRecord>;
  resolve(record: AuditRecord): void;
  reject(error: unknown): void;
}

interface TenantLane {
  tenantId: string;
  queue: PendingAppend[];
  running: boolean;
  /** Cancels the scheduled drain, if one is scheduled. */
  cancelTimer: (() => void) | undefined;
  /** Last head this writer saw; undefined when unknown (never read, or lost a race since). */
  head: ChainHead | null | undefined;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1) throw new RangeError(`${name} must be a positive integer`);
  return result;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result < 0) throw new RangeError(`${name} must be a non-negative number`);
  return result;
}

const MAX_RECORD_ID_LENGTH = 128;

function givenRecordId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_RECORD_ID_LENGTH) {
    throw new AuditEventError(`a record id must be a string of 1 to ${MAX_RECORD_ID_LENGTH} characters`);
  }
  return id;
}

/** Records for `pending` on top of `head`, in queue order. */
function buildRecords(pending: readonly PendingAppend[], head: ChainHead | null): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let previousHash = head?.hash ?? GENESIS_PREVIOUS_HASH;
  return pending.map(({ id, event }) => {
    seq += 1;
    const content = { id, seq, ...event, previousHash };
    const record: AuditRecord = { ...content, hash: computeAuditHash(content) };
    previousHash = record.hash;
    return record;
  });
}

function cancelTimer(lane: TenantLane): void {
  lane.cancelTimer?.();
  lane.cancelTimer = undefined;
}

/** Runs `task` after `ms` (0: the next turn of the event loop); returns its cancellation. */
function later(ms: number, task: () => void): () => void {
  if (ms === 0) {
    const immediate = setImmediate(task);
    return () => clearImmediate(immediate);
  }
  const timeout = setTimeout(task, ms);
  return () => clearTimeout(timeout);
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Batches appends per tenant and writes them fork-proof without transactions: a batch is built on
 * the head this writer last saw and inserted; the unique (tenant, seq) index refuses it when another
 * writer (in this process or any other) got there first, and then the remaining records are rebuilt
 * on the re-read head. While one insert is in flight for a tenant, new appends gather for the next.
 */
export function createAuditChainWriter(
  repository: AuditChainRepository,
  options: AuditChainWriterOptions = {},
): AuditChainWriter {
  const batchSize = positiveInteger(options.batchSize, 100, 'batchSize');
  const flushIntervalMs = nonNegative(options.flushIntervalMs, 0, 'flushIntervalMs');
  const maxConflicts = positiveInteger(options.maxConflicts, 1000, 'maxConflicts');
  const conflictBackoffMs = nonNegative(options.conflictBackoffMs, 2, 'conflictBackoffMs');
  const isUnavailable = options.isUnavailable ?? (() => false);
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomUUID;

  const lanes = new Map<string, TenantLane>();
  const unsettled = new Set<Promise<AuditRecord>>();
  const stats: AuditChainWriterStats = { appended: 0, batches: 0, conflicts: 0 };
  let closed = false;

  function laneFor(tenantId: string): TenantLane {
    let lane = lanes.get(tenantId);
    if (lane === undefined) {
      lane = { tenantId, queue: [], running: false, cancelTimer: undefined, head: undefined };
      lanes.set(tenantId, lane);
    }
    return lane;
  }

  function schedule(lane: TenantLane): void {
    if (lane.running) return;
    if (lane.queue.length >= batchSize) {
      void drain(lane);
    } else if (lane.cancelTimer === undefined) {
      lane.cancelTimer = later(flushIntervalMs, () => void drain(lane));
    }
  }

  async function drain(lane: TenantLane): Promise<void> {
    cancelTimer(lane);
    if (lane.running) return;
    lane.running = true;
    try {
      while (lane.queue.length > 0) {
        await writeBatch(lane, lane.queue.splice(0, batchSize));
      }
    } finally {
      lane.running = false;
    }
  }

  async function writeBatch(lane: TenantLane, batch: PendingAppend[]): Promise<void> {
    let pending = batch;
    let conflicts = 0;
    while (pending.length > 0) {
      let inserted: number;
      let records: AuditRecord[];
      try {
        if (lane.head === undefined) lane.head = await repository.head(lane.tenantId);
        records = buildRecords(pending, lane.head);
        stats.batches += 1;
        inserted = await repository.insertBatch(lane.tenantId, records);
      } catch (error) {
        lane.head = undefined;
        for (const p of pending) p.reject(error);
        // When the store is away, the appends queued behind this batch wait on it too: fail them now
        // rather than let each spend a store timeout of its own in turn (behind a frozen store, 8 s
        // apiece, queued). Any other error is this batch's own; the queue is written in its turn.
        if (isUnavailable(error)) for (const p of lane.queue.splice(0)) p.reject(error);
        return;
      }
      for (let i = 0; i < inserted; i += 1) pending[i]!.resolve(records[i]!);
      stats.appended += inserted;
      if (inserted === records.length) {
        lane.head = { seq: records[inserted - 1]!.seq, hash: records[inserted - 1]!.hash };
        return;
      }
      // Another writer holds the next seq: whatever it wrote is the chain now.
      lane.head = undefined;
      pending = pending.slice(inserted);
      conflicts += 1;
      stats.conflicts += 1;
      if (conflicts > maxConflicts) {
        const error = new AuditChainContentionError(lane.tenantId, conflicts - 1);
        for (const p of pending) p.reject(error);
        return;
      }
      const room = batchSize - pending.length;
      if (room > 0 && lane.queue.length > 0) pending = pending.concat(lane.queue.splice(0, room));
      // Random pause so that racing writers stop colliding in lockstep.
      await pause(Math.random() * conflictBackoffMs * Math.min(conflicts, 8));
    }
  }

  async function flush(): Promise<void> {
    const waiting = [...unsettled];
    for (const lane of lanes.values()) {
      if (lane.queue.length > 0) void drain(lane);
    }
    await Promise.allSettled(waiting);
  }

  return {
    append(tenantId, event, options = {}) {
      if (closed) return Promise.reject(new AuditWriterClosedError());
      let normalised: NormalisedAuditEvent;
      let id: string;
      try {
        assertAuditTenantId(tenantId);
        normalised = normaliseAuditEvent(event, now());
        id = options.id === undefined ? newId() : givenRecordId(options.id);
      } catch (error) {
        return Promise.reject(error);
      }
      let resolve!: (record: AuditRecord) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<AuditRecord>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const settle = () => unsettled.delete(promise);
      promise.then(settle, settle);
      unsettled.add(promise);
      const lane = laneFor(tenantId);
      lane.queue.push({ id, event: normalised, promise, resolve, reject });
      schedule(lane);
      return promise;
    },

    flush,

    async close() {
      closed = true;
      await flush();
      for (const lane of lanes.values()) cancelTimer(lane);
    },

    stats() {
      return { ...stats };
    },
  };
}

import { computeAuditContentHash, type AuditReceipt } from './audit-content-hash.js';
import { assertAuditTenantId, AuditEventError, normaliseAuditEventWithText, type AuditEvent } from './audit-event.js';
import type { AuditLinkRepository, UnlinkedAuditEntry, UnlinkedAuditRecord } from './audit-link-store.js';
import { newAuditRecordId } from './new-audit-record-id.js';

export interface AuditRecorderOptions {
  /** Most records in one insert. Default 500. */
  batchSize?: number;
  /**
   * How long a lone append waits for others to share its insert. Default 0: the next turn of the
   * event loop, so appends made in the same turn share one insert and, while an insert is in
   * flight, later appends gather for the next (group commit) without adding a fixed delay.
   */
  flushIntervalMs?: number;
  /**
   * True when an insert's error means the store is away or not answering. Only then are the appends
   * queued behind the refused batch failed with it (they would wait on the same store). Default: never.
   */
  isUnavailable?: (error: unknown) => boolean;
  /** Records of these tenants were stored unlinked (after each insert): where the linker learns of them. */
  onStored?: (tenantIds: ReadonlySet<string>) => void;
  /**
   * Offered each tenant's records of a batch before they are stored unlinked: true when it stored
   * and linked them in one write (the linker's linkAtOnce), false when they are to be stored as
   * usual; a rejection fails their appends (the write may have happened: they are not stored again).
   */
  linkAtOnce?: (tenantId: string, records: readonly UnlinkedAuditRecord[]) => Promise<boolean>;
  now?: () => Date;
  newId?: () => string;
}

export interface AuditAppendOptions {
  /**
   * The record's id instead of a new UUID: for a record whose id is fixed beforehand (an owed
   * record, looked up by id before it is written again). A record whose id the tenant's chain or
   * unlinked records hold already is not stored twice.
   */
  id?: string;
}

export interface AuditRecorderStats {
  /** Records this recorder stored. */
  stored: number;
  /** Inserts made. */
  batches: number;
}

export interface AuditRecorder {
  /** Stores the record; resolves with its receipt once the store has it durably (not yet linked). */
  append(tenantId: string, event: AuditEvent, options?: AuditAppendOptions): Promise<AuditReceipt>;
  /** Resolves when every append made before the call has settled. */
  flush(): Promise<void>;
  /** Flushes, then refuses further appends. */
  close(): Promise<void>;
  stats(): AuditRecorderStats;
}

export class AuditRecorderClosedError extends Error {
  override readonly name = 'AuditRecorderClosedError';
  constructor() {
    super('audit recorder is closed');
  }
}

interface PendingAppend {
  entry: UnlinkedAuditEntry;
  receipt: AuditReceipt;
  resolve(receipt: AuditReceipt): void;
  reject(error: unknown): void;
}

const MAX_RECORD_ID_LENGTH = 128;

function givenRecordId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_RECORD_ID_LENGTH) {
    throw new AuditEventError(`a record id must be a string of 1 to ${MAX_RECORD_ID_LENGTH} characters`);
  }
  return id;
}

function whole(value: number | undefined, fallback: number, name: string, least: number): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < least) throw new RangeError(`${name} must be a whole number of at least ${least}`);
  return result;
}

/**
 * Stores audit records as they are answered: a plain insert shared by every append in flight, of
 * any tenant (no chain head is read, so API processes never race); the tenant's linker gives them
 * their place in the chain later (audit-linker.ts). An append resolves once its record is durably
 * stored, with the receipt the answer carries.
 */
export function createAuditRecorder(repository: Pick<AuditLinkRepository, 'storeUnlinked'>, options: AuditRecorderOptions = {}): AuditRecorder {
  const batchSize = whole(options.batchSize, 500, 'batchSize', 1);
  const flushIntervalMs = whole(options.flushIntervalMs, 0, 'flushIntervalMs', 0);
  const isUnavailable = options.isUnavailable ?? (() => false);
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? newAuditRecordId;

  const queue: PendingAppend[] = [];
  const unsettled = new Set<Promise<AuditReceipt>>();
  const stats: AuditRecorderStats = { stored: 0, batches: 0 };
  let running = false;
  let cancelTimer: (() => void) | undefined;
  let closed = false;

  function schedule(): void {
    if (running) return;
    if (queue.length >= batchSize) {
      void drain();
    } else if (cancelTimer === undefined) {
      if (flushIntervalMs === 0) {
        const immediate = setImmediate(() => void drain());
        cancelTimer = () => clearImmediate(immediate);
      } else {
        const timeout = setTimeout(() => void drain(), flushIntervalMs);
        cancelTimer = () => clearTimeout(timeout);
      }
    }
  }

  async function drain(): Promise<void> {
    cancelTimer?.();
    cancelTimer = undefined;
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) await writeBatch(queue.splice(0, batchSize));
    } finally {
      running = false;
    }
  }

  /**
   * Offers each tenant's appends to its linker: those it stored linked are settled, as are those
   * whose write failed (with the error, and every append waiting when the store is away, as an
   * insert's failure does); the rest are returned, to be stored unlinked.
   */
  async function linkWhereHeld(batch: readonly PendingAppend[], linkAtOnce: NonNullable<AuditRecorderOptions['linkAtOnce']>): Promise<PendingAppend[]> {
    const byTenant = new Map<string, PendingAppend[]>();
    for (const p of batch) {
      const appends = byTenant.get(p.entry.tenantId);
      if (appends === undefined) byTenant.set(p.entry.tenantId, [p]);
      else appends.push(p);
    }
    const groups = [...byTenant];
    const rest: PendingAppend[] = [];
    for (const [i, [tenantId, appends]] of groups.entries()) {
      let linked: boolean;
      try {
        linked = await linkAtOnce(tenantId, appends.map((p) => p.entry.record));
      } catch (error) {
        stats.batches += 1;
        for (const p of appends) p.reject(error);
        if (isUnavailable(error)) {
          for (const p of [...rest, ...groups.slice(i + 1).flatMap(([, later]) => later), ...queue.splice(0)]) p.reject(error);
          return [];
        }
        continue;
      }
      if (!linked) {
        rest.push(...appends);
        continue;
      }
      stats.batches += 1;
      stats.stored += appends.length;
      for (const p of appends) p.resolve(p.receipt);
    }
    return rest;
  }

  async function writeBatch(appends: PendingAppend[]): Promise<void> {
    const storedAt = now().toISOString();
    for (const p of appends) p.entry.record.storedAt = storedAt;
    const batch = options.linkAtOnce === undefined ? appends : await linkWhereHeld(appends, options.linkAtOnce);
    if (batch.length === 0) return;
    try {
      stats.batches += 1;
      await repository.storeUnlinked(batch.map((p) => p.entry));
    } catch (error) {
      for (const p of batch) p.reject(error);
      // When the store is away, the appends queued behind this batch wait on it too: fail them now
      // rather than let each spend a store timeout of its own in turn.
      if (isUnavailable(error)) for (const p of queue.splice(0)) p.reject(error);
      return;
    }
    stats.stored += batch.length;
    for (const p of batch) p.resolve(p.receipt);
    options.onStored?.(new Set(batch.map((p) => p.entry.tenantId)));
  }

  async function flush(): Promise<void> {
    const waiting = [...unsettled];
    if (queue.length > 0) void drain();
    await Promise.allSettled(waiting);
  }

  return {
    append(tenantId, event, appendOptions = {}) {
      if (closed) return Promise.reject(new AuditRecorderClosedError());
      let entry: UnlinkedAuditEntry;
      try {
        assertAuditTenantId(tenantId);
        const { event: normalised, payloadText } = normaliseAuditEventWithText(event, now());
        const id = appendOptions.id === undefined ? newId() : givenRecordId(appendOptions.id);
        entry = {
          tenantId,
          record: {
            ...normalised,
            id,
            contentHash: computeAuditContentHash(id, normalised, payloadText),
            storedAt: '',
            payloadText,
            ...(appendOptions.id === undefined ? {} : { givenId: true as const }),
          },
        };
      } catch (error) {
        return Promise.reject(error);
      }
      let resolve!: (receipt: AuditReceipt) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<AuditReceipt>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const settle = () => unsettled.delete(promise);
      promise.then(settle, settle);
      unsettled.add(promise);
      queue.push({ entry, receipt: { id: entry.record.id, contentHash: entry.record.contentHash }, resolve, reject });
      schedule();
      return promise;
    },

    flush,

    async close() {
      closed = true;
      await flush();
      cancelTimer?.();
    },

    stats() {
      return { ...stats };
    },
  };
}

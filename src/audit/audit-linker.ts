import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isValidTenantId } from '../kernel/index.js';
import { GENESIS_PREVIOUS_HASH, type AuditRecord, type ChainHead } from './audit-chain-store.js';
import { computeAuditHash, hashAuditContent, linkedAuditContent } from './audit-hash.js';
import type { AuditLinkRepository, HeldLease, LinkRecord, UnlinkedAuditRecord } from './audit-link-store.js';

export interface AuditLinkerOptions {
  /** Who this process links as: host, pid and a random part, which is what an operator looks for. */
  holder?: string;
  /** How long a lease lasts without renewal; another process takes a tenant over after it. Default 10 s. */
  leaseMs?: number;
  /** Records linked in one write while a tenant has few waiting. Default 500. */
  batchSize?: number;
  /**
   * A tenant whose last batch was full (a backlog) gets twice as many next turn, up to this. A link's
   * fixed costs (on FerretDB, reads that scan the waiting records) are then shared by more records,
   * so a backlog shrinks instead of slowing each batch down. Default 8 × batchSize.
   */
  maxBatchSize?: number;
  /** Tenants linked at once; the others wait their turn, one batch per turn. Default 4. */
  concurrency?: number;
  /** A held tenant without records to link for this long is let go. Default 5 s. */
  idleMs?: number;
  /** Records stored this long ago and still unlinked are looked for by the sweep. Default 1 s. */
  sweepAfterMs?: number;
  now?: () => Date;
  /** A tenant's records were linked; `lagMs` per record, from stored to linked (0 when the storing process's clock ran ahead). */
  onLinked?: (tenantId: string, records: readonly AuditRecord[], lagMs: readonly number[]) => void;
  /** Records of a tenant whose lease another process holds were stored here: tell that process. */
  onHeldElsewhere?: (tenantId: string) => void;
  /** The linker lost a tenant's lease while linking (another holder took over): nothing was written. */
  onFenced?: (tenantId: string) => void;
  onError?: (error: unknown, tenantId: string | null) => void;
}

export interface AuditLinker {
  readonly holder: string;
  /**
   * Records of the tenant were stored: here, or (`heard`) in another process that told us. Only
   * records stored here are announced to the holder when another process holds the tenant, so a
   * notice never echoes between processes.
   */
  notify(tenantId: string, options?: { heard?: boolean }): void;
  /**
   * Stores and links records stored nowhere yet in one write, when the store links in one write and
   * this linker holds the tenant's lease (taking or renewing it as a turn would) with nothing of the
   * tenant waiting or in hand: the insert an answer waits for is then its link, not a second write.
   * True when they are in the chain; false, with nothing written, when they are to be stored unlinked.
   * Rejects with the store's error when the write failed and may or may not have happened: the
   * records must then not be stored again.
   */
  linkAtOnce(tenantId: string, records: readonly UnlinkedAuditRecord[]): Promise<boolean>;
  /** One sweep: links the tenants this linker holds, and those whose records wait with no one linking them. */
  sweep(): Promise<void>;
  /** Resolves when every tenant notified before the call has been linked as far as this linker can. */
  settled(): Promise<void>;
  /** Sweeps every `intervalMs` until stop(). */
  start(intervalMs: number): void;
  /** Ends the sweeps, finishes the links in progress and gives every lease back. */
  stop(): Promise<void>;
}

interface TenantLink {
  tenantId: string;
  lease: HeldLease | null;
  head: ChainHead | null;
  /** Records were stored since the last read of the unlinked records. */
  dirty: boolean;
  /** Some of them were stored by this process: if another holds the tenant, it is told. */
  storedHere: boolean;
  queued: boolean;
  running: boolean;
  lastActive: number;
  /** Records to read next turn: the base, doubled after each full batch (a backlog). */
  batchSize: number;
  /** Another process held the lease when last asked: not asked again before this time (ms). */
  elsewhereUntil: number;
}

export function newLinkerHolder(): string {
  return `${hostname().slice(0, 64)}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

function whole(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1) throw new RangeError(`${name} must be a positive whole number`);
  return result;
}

/** Records for `unlinked` on top of `head`, in stored order. */
function chainOf(unlinked: readonly UnlinkedAuditRecord[], head: ChainHead | null): LinkRecord[] {
  let seq = head?.seq ?? 0;
  let previousHash = head?.hash ?? GENESIS_PREVIOUS_HASH;
  return unlinked.map(({ id, eventType, policyModule, policyFunction, actorId, occurredAt, payload, givenId, payloadText }) => {
    seq += 1;
    // The chain's fields, picked by name: nothing else the unlinked record carries reaches the link.
    const linked = { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, previousHash };
    const hash = payloadText === undefined ? computeAuditHash(linked) : hashAuditContent(linkedAuditContent(linked, payloadText));
    const record: LinkRecord = { ...linked, hash };
    if (givenId) record.givenId = givenId;
    if (payloadText !== undefined) record.payloadText = payloadText;
    previousHash = hash;
    return record;
  });
}

/**
 * Links stored records into their tenant's chain: for each tenant, the one process holding its
 * lease takes the records in stored order, gives them seq, previousHash and hash, and writes them
 * with the lease's epoch, which the store checks (a holder that lost its lease writes nothing).
 * Tenants take turns, one batch each, so a busy chain never holds a quiet one back.
 */
export function createAuditLinker(repository: AuditLinkRepository, options: AuditLinkerOptions = {}): AuditLinker {
  const holder = options.holder ?? newLinkerHolder();
  const leaseMs = whole(options.leaseMs, 10_000, 'leaseMs');
  const batchSize = whole(options.batchSize, 500, 'batchSize');
  const maxBatchSize = whole(options.maxBatchSize, 8 * batchSize, 'maxBatchSize');
  if (maxBatchSize < batchSize) throw new RangeError('maxBatchSize must be at least batchSize');
  const concurrency = whole(options.concurrency, 4, 'concurrency');
  const idleMs = whole(options.idleMs, 5_000, 'idleMs');
  const sweepAfterMs = whole(options.sweepAfterMs, 1_000, 'sweepAfterMs');
  const now = options.now ?? (() => new Date());
  // Every time the linker keeps (leases, when another holds a tenant, idleness) is on this one clock.
  const nowMs = () => now().getTime();

  const tenants = new Map<string, TenantLink>();
  const turns: TenantLink[] = [];
  let active = 0;
  let stopped = false;
  let idleWaiters: (() => void)[] = [];

  function linkOf(tenantId: string): TenantLink {
    let link = tenants.get(tenantId);
    if (link === undefined) {
      link = { tenantId, lease: null, head: null, dirty: false, storedHere: false, queued: false, running: false, batchSize, lastActive: nowMs(), elsewhereUntil: 0 };
      tenants.set(tenantId, link);
    }
    return link;
  }

  function enqueue(link: TenantLink): void {
    if (stopped || link.queued || link.running) return;
    link.queued = true;
    turns.push(link);
    pump();
  }

  function pump(): void {
    while (active < concurrency && turns.length > 0) {
      const link = turns.shift()!;
      link.queued = false;
      link.running = true;
      active += 1;
      void turn(link).finally(() => {
        link.running = false;
        active -= 1;
        if (link.dirty) enqueue(link);
        pump();
        if (active === 0 && turns.length === 0) {
          const waiters = idleWaiters;
          idleWaiters = [];
          for (const wake of waiters) wake();
        }
      });
    }
  }

  /** The lease, taken or renewed when less than half of it is left; null when another process holds it. */
  async function leaseFor(link: TenantLink): Promise<HeldLease | null> {
    const at = now();
    if (link.lease !== null && Date.parse(link.lease.until) - at.getTime() > leaseMs / 2) return link.lease;
    const lease = await repository.takeLease(link.tenantId, holder, new Date(at.getTime() + leaseMs).toISOString(), at.toISOString());
    if (lease !== null && (link.lease === null || lease.epoch !== link.lease.epoch)) link.head = lease.head;
    link.lease = lease;
    return lease;
  }

  /** Another process holds the tenant: it is not asked for again before half a lease has passed. */
  function heldElsewhere(link: TenantLink): void {
    link.elsewhereUntil = nowMs() + leaseMs / 2;
  }

  /** The store refused a link: another process holds the lease now, and links the tenant. */
  function fenced(link: TenantLink): void {
    link.lease = null;
    heldElsewhere(link);
    options.onFenced?.(link.tenantId);
  }

  /** The head the next link builds on: the last of the records just linked. */
  function moveHead(link: TenantLink, records: readonly LinkRecord[]): void {
    const last = records[records.length - 1]!;
    link.head = { seq: last.seq, hash: last.hash };
  }

  /** One batch of one tenant; requeued while records remain. */
  async function turn(link: TenantLink): Promise<void> {
    link.dirty = false;
    const storedHere = link.storedHere;
    link.storedHere = false;
    try {
      // While another process links the tenant, tell it of records stored here instead of asking
      // the store for the lease at every insert.
      if (nowMs() < link.elsewhereUntil) {
        if (storedHere) options.onHeldElsewhere?.(link.tenantId);
        return;
      }
      const lease = await leaseFor(link);
      if (lease === null) {
        heldElsewhere(link);
        if (storedHere) options.onHeldElsewhere?.(link.tenantId);
        return;
      }
      const size = link.batchSize;
      const unlinked = await repository.unlinked(link.tenantId, size);
      if (unlinked.length === 0) return;
      link.lastActive = nowMs();
      const records = chainOf(unlinked, link.head);
      if (!(await repository.link(link.tenantId, lease, records))) {
        // Another process holds the lease now (this one was paused or slow past it): it links, and
        // is told of the records stored here, as it would have been had this process known.
        fenced(link);
        if (storedHere) options.onHeldElsewhere?.(link.tenantId);
        return;
      }
      moveHead(link, records);
      const linkedAt = nowMs();
      // storedAt is the storing process's clock: one running ahead of this one must not make a lag negative.
      options.onLinked?.(link.tenantId, records, unlinked.map((u) => Math.max(0, linkedAt - Date.parse(u.storedAt))));
      // A full batch: more wait. Take more next turn, down to the base again once the backlog is gone.
      link.batchSize = unlinked.length === size ? Math.min(maxBatchSize, size * 2) : batchSize;
      if (unlinked.length === size) link.dirty = true;
    } catch (error) {
      // What the store did is unknown: read the lease and head afresh next time.
      link.lease = null;
      options.onError?.(error, link.tenantId);
    }
  }

  async function sweep(): Promise<void> {
    const at = nowMs();
    for (const link of [...tenants.values()]) {
      if (link.running || link.queued) continue;
      if (at - link.lastActive > idleMs) {
        tenants.delete(link.tenantId);
        if (link.lease !== null) {
          await repository.releaseLease(link.tenantId, link.lease).catch((error: unknown) => options.onError?.(error, link.tenantId));
        }
        continue;
      }
      link.dirty = true;
      enqueue(link);
    }
    try {
      const waiting = await repository.tenantsWaiting(new Date(now().getTime() - sweepAfterMs).toISOString(), 100);
      for (const tenantId of waiting) notify(tenantId, { heard: true });
    } catch (error) {
      options.onError?.(error, null);
    }
  }

  /** linkAtOnce calls in flight: stop() waits for them before it gives the leases back. */
  const linkingAtOnce = new Set<Promise<boolean>>();

  function linkAtOnce(tenantId: string, unlinked: readonly UnlinkedAuditRecord[]): Promise<boolean> {
    const linking = linkNow(tenantId, unlinked);
    linkingAtOnce.add(linking);
    const done = () => linkingAtOnce.delete(linking);
    linking.then(done, done);
    return linking;
  }

  async function linkNow(tenantId: string, unlinked: readonly UnlinkedAuditRecord[]): Promise<boolean> {
    if (!repository.linksInOneWrite || stopped || unlinked.length === 0 || !isValidTenantId(tenantId)) return false;
    const link = linkOf(tenantId);
    if (link.running || link.queued || link.dirty || nowMs() < link.elsewhereUntil) return false;
    // A given id may be in the chain already: such records are looked for there before linking.
    if (unlinked.some((record) => record.givenId)) return false;
    // No turn of the tenant starts while this write is out: both would build on the same head.
    link.running = true;
    let records: LinkRecord[];
    try {
      // The lease as a turn takes it: renewed when half of it is gone, taken when no one holds it.
      const lease = await leaseFor(link);
      if (lease === null) {
        heldElsewhere(link);
        return false;
      }
      records = chainOf(unlinked, link.head);
      if (!(await repository.link(tenantId, lease, records, { unstored: true }))) {
        fenced(link);
        return false;
      }
    } catch (error) {
      // Whether the store wrote is unknown: the records are not stored again (they might be linked
      // twice); their appends fail with the error, and the lease and head are read afresh next time.
      link.lease = null;
      throw error;
    } finally {
      link.running = false;
      if (link.dirty) enqueue(link);
    }
    // Linked: nothing after this point may send the records the other way.
    moveHead(link, records);
    link.lastActive = nowMs();
    try {
      options.onLinked?.(tenantId, records, records.map(() => 0));
    } catch (error) {
      options.onError?.(error, tenantId);
    }
    return true;
  }

  function notify(tenantId: string, { heard = false }: { heard?: boolean } = {}): void {
    // A notice comes over Redis: a name that cannot be a tenant's never reaches the store.
    if (!isValidTenantId(tenantId)) return;
    const link = linkOf(tenantId);
    link.dirty = true;
    if (!heard) link.storedHere = true;
    link.lastActive = nowMs();
    enqueue(link);
  }

  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;

  function scheduleSweep(intervalMs: number): void {
    timer = setTimeout(() => {
      sweeping = sweep().finally(() => {
        sweeping = undefined;
        if (!stopped) scheduleSweep(intervalMs);
      });
    }, intervalMs);
    timer.unref();
  }

  function settled(): Promise<void> {
    if (active === 0 && turns.length === 0) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  return {
    holder,
    notify,
    linkAtOnce,
    sweep,
    settled,

    start(intervalMs) {
      if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be at least 1');
      scheduleSweep(intervalMs);
    },

    async stop() {
      await settled();
      stopped = true;
      clearTimeout(timer);
      await sweeping;
      await Promise.allSettled([...linkingAtOnce]);
      await settled();
      for (const link of tenants.values()) {
        if (link.lease !== null) {
          await repository.releaseLease(link.tenantId, link.lease).catch((error: unknown) => options.onError?.(error, link.tenantId));
        }
      }
      tenants.clear();
    },
  };
}

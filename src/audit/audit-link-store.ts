import type { AuditRecord, ChainHead } from './audit-chain-store.js';
import type { NormalisedAuditEvent } from './audit-event.js';

/**
 * What recording and linking need from storage. A process that answers stores its records as they
 * are (content and content hash, no place in the chain yet) with a plain insert; one linker per
 * tenant, holding the tenant's lease, later gives them their seq, previousHash and hash. The lease
 * and the chain's head live in one stored row per tenant, so a holder that lost its lease can never
 * move the head (the epoch fences it). The contract suite in test/contracts runs against each adapter.
 */

/** A record stored by the process that answered, not yet in the chain. */
export interface UnlinkedAuditRecord extends NormalisedAuditEvent {
  id: string;
  /** Lowercase hex SHA-256 of the canonical content (audit-content-hash.ts): what the receipt carries. */
  contentHash: string;
  /** When the record was stored (ISO 8601): how long it has waited for its link. */
  storedAt: string;
  /**
   * The caller fixed the id (an owed record), so the record may be stored again after its link; a
   * generated id is stored once. Only such records are looked for in the chain before linking.
   */
  givenId?: true;
  /**
   * The payload's canonical JSON, when the record comes straight from its append (made once there):
   * what the hashes and the stored text are written from. Absent on a record read back.
   */
  payloadText?: string;
}

/** A record to link, built on the head: `givenId` and `payloadText` as the unlinked record had them. */
export type LinkRecord = AuditRecord & { givenId?: true; payloadText?: string };

/** One record to store, of any tenant: one insert carries the records of many tenants. */
export interface UnlinkedAuditEntry {
  tenantId: string;
  record: UnlinkedAuditRecord;
}

/** Who links a tenant's records, and until when; `epoch` grows at every change of holder. */
export interface LinkerLease {
  holder: string;
  epoch: number;
  /** ISO 8601: past it, any process may take the lease over. */
  until: string;
}

/** A lease held, with the chain's head as the lease's row has it. */
export interface HeldLease extends LinkerLease {
  head: ChainHead | null;
}

export interface UnlinkedSummary {
  count: number;
  /** storedAt of the oldest unlinked record; null when there is none. */
  oldestStoredAt: string | null;
}

export interface LinkOptions {
  /**
   * The records were stored nowhere yet (only where `linksInOneWrite`): they are stored and linked
   * in this write, with nothing to remove from the unlinked records.
   */
  unstored?: boolean;
}

export interface AuditLinkRepository {
  /**
   * `link` is one atomic write (SQLite), so it may take records stored nowhere yet: they are then
   * stored and linked at once, or not at all. False where a link is several writes (MongoDB): there
   * a record is stored unlinked first, whatever holds its lease.
   */
  readonly linksInOneWrite: boolean;
  /**
   * Stores the records in one durable write. A record whose (tenant, id) is already stored,
   * unlinked or linked, is not stored again. Resolves once the write is durable.
   */
  storeUnlinked(entries: readonly UnlinkedAuditEntry[]): Promise<void>;
  /**
   * Takes the tenant's linker lease for `holder` until `until`: when no one holds it, or its holder's
   * `until` is before `now`, or `holder` holds it already (a renewal: the epoch stays). A take-over
   * increases the epoch and first completes a link its previous holder left half-written. Null when
   * another holder's lease is still running.
   */
  takeLease(tenantId: string, holder: string, until: string, now: string): Promise<HeldLease | null>;
  /** Ends the lease when `holder` still holds it at `epoch`; otherwise does nothing. */
  releaseLease(tenantId: string, lease: LinkerLease): Promise<void>;
  /** The tenant's unlinked records, oldest stored first, at most `limit`. */
  unlinked(tenantId: string, limit: number): Promise<UnlinkedAuditRecord[]>;
  /**
   * Puts `records` (built on the head the lease reported or the last link returned, consecutive and
   * linked to each other) into the chain and removes them from the unlinked records, only while
   * `lease` is still the tenant's lease and the head is the one they were built on. Returns false,
   * writing nothing, when it is not: the caller lost its lease.
   */
  link(tenantId: string, lease: LinkerLease, records: readonly LinkRecord[], options?: LinkOptions): Promise<boolean>;
  /** The tenant's unlinked record with this id, or null. */
  findUnlinked(tenantId: string, id: string): Promise<UnlinkedAuditRecord | null>;
  /** How many records of the tenant wait for their link, and since when. */
  unlinkedSummary(tenantId: string): Promise<UnlinkedSummary>;
  /**
   * Tenants with a record stored before `storedBefore` still unlinked, at most `limit`, the longest
   * waiting first. One of the few reads across tenants: it finds chains whose linker is gone.
   */
  tenantsWaiting(storedBefore: string, limit: number): Promise<string[]>;
}

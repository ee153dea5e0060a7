import type { Collection, Db } from 'mongodb';
import { COLLECTIONS, linkLogDocumentId, type ChainHeadDocument, type LinkLogDocument } from './collections.js';
import { contiguousHead } from './contiguous-head.js';
import { isDuplicateKey } from './duplicate-key.js';

/** A tenant's newest link log entry, as this process knows it. */
export interface LogState {
  n: number;
  seq: number;
  hash: string | null;
  holder: string;
  epoch: number;
  /** The chain holds the head record: no link is left half-written. */
  complete: boolean;
}

/** The `until` of a lease whose taker never told it: ended, so any process may take over. */
export const LEASE_ENDED = new Date(0).toISOString();

export interface LinkLog {
  readonly heads: Collection<ChainHeadDocument>;
  /** The newest entry this process appended or read; it may lag behind the log. */
  known(tenantId: string): LogState | undefined;
  entryAt(tenantId: string, n: number): Promise<LinkLogDocument | null>;
  /** Inserts the entry; false, storing nothing, when its n is taken. */
  append(entry: LinkLogDocument, complete: boolean): Promise<boolean>;
  /** Reads the log up to its newest entry and rewrites the head document from it; null without a log. */
  resync(tenantId: string): Promise<LogState | null>;
  /** Records the state (a later entry, or the same one completed) here and in the head document. */
  settle(tenantId: string, state: LogState, until?: string): Promise<void>;
}

function stateOf(entry: LinkLogDocument, complete: boolean): LogState {
  return { n: entry.n, seq: entry.seq, hash: entry.hash, holder: entry.holder, epoch: entry.epoch, complete };
}

/**
 * A tenant's link log and its head document. The log grows by one entry per link and per change of
 * holder and is read only when the head document falls behind it (a writer stopped between the
 * two, or two of its writes raced): on FerretDB every read and update costs time in proportion to
 * the collection's size, while an insert does not.
 */
export function createLinkLog(db: Db): LinkLog {
  const entries = db.collection<LinkLogDocument>(COLLECTIONS.linkLog);
  const heads = db.collection<ChainHeadDocument>(COLLECTIONS.chainHeads);
  const states = new Map<string, LogState>();

  function remember(tenantId: string, state: LogState): void {
    const current = states.get(tenantId);
    if (current === undefined || current.n < state.n) states.set(tenantId, state);
    // The same entry: completion only ever becomes known.
    else if (current.n === state.n) states.set(tenantId, { ...state, complete: current.complete || state.complete });
  }

  const entryAt = (tenantId: string, n: number) => entries.findOne({ _id: linkLogDocumentId(tenantId, n) });

  async function publish(tenantId: string, state: LogState, until: string | undefined): Promise<void> {
    const fields = { n: state.n, seq: state.seq, hash: state.hash, holder: state.holder, epoch: state.epoch, complete: state.complete };
    try {
      // Never back to an older entry as far as the filter sees (it is no guarantee on FerretDB, and
      // the head document decides nothing). An older-only match finds the document, so the upsert
      // inserts nothing; a document that does not exist yet is created.
      await heads.updateOne({ _id: tenantId, n: { $lte: state.n } }, { $set: until === undefined ? fields : { ...fields, until } }, { upsert: true });
    } catch (error) {
      // The upsert met a newer document: it stays.
      if (!isDuplicateKey(error)) throw error;
    }
  }

  return {
    heads,
    known: (tenantId) => states.get(tenantId),
    entryAt,

    async append(entry, complete) {
      try {
        await entries.insertOne(entry);
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      remember(entry.tenantId, stateOf(entry, complete));
      return true;
    },

    async resync(tenantId) {
      const hint = await heads.findOne({ _id: tenantId });
      // Entries have no gaps and are never deleted: gallop from the highest one known to exist.
      const from = Math.max(hint?.n ?? 0, states.get(tenantId)?.n ?? 0);
      const { head, value } = await contiguousHead((n) => entryAt(tenantId, n), from);
      if (head === 0) return null;
      const newest = value ?? (await entryAt(tenantId, head));
      if (newest === null) throw new Error(`link log entry ${head} of tenant \`${tenantId}\` is gone (entries must never be deleted)`);
      remember(tenantId, stateOf(newest, false));
      const state = states.get(tenantId)!;
      // Renewals move `until` in the head document while its epoch is the lease's; else the lease is as taken.
      const until = hint?.epoch === state.epoch ? hint.until : ((await entryAt(tenantId, state.epoch))?.until ?? LEASE_ENDED);
      await publish(tenantId, state, until);
      return state;
    },

    async settle(tenantId, state, until) {
      remember(tenantId, state);
      await publish(tenantId, state, until);
    },
  };
}

import type { AuditChainRepository, AuditRecord } from '../audit/index.js';
import type { WebhookDispatch } from './webhook-dispatch.js';
import { CHAIN_EVENT_TYPES, chainEventOf } from './webhook-events.js';
import type { WebhookRepository } from './webhook-store.js';

/** Records of one tenant a round reads at most; the next round goes on from there, after every other tenant had its share. */
export const FOLLOW_RECORDS_PER_TENANT = 100;
/** Tenants one round goes through at most; the next round goes on after the last of them. */
export const FOLLOW_TENANTS_PER_ROUND = 200;

export interface ChainFollowerDeps {
  audit: Pick<AuditChainRepository, 'head' | 'listTypeAfter'>;
  webhooks: Pick<WebhookRepository, 'followedTenants' | 'subscriptionsOf' | 'cursor' | 'advanceCursor'>;
  dispatch: WebhookDispatch['dispatch'];
  onError(error: unknown, tenantId: string): void;
}

export interface ChainRound {
  /** The last tenant this round went through, where the next starts; null when it reached the end. */
  next: string | null;
  tenants: number;
  events: number;
}

export interface ChainFollower {
  /**
   * Goes through the followed tenants after `after` (null: from the first), at most
   * FOLLOW_TENANTS_PER_ROUND of them, each for at most FOLLOW_RECORDS_PER_TENANT records.
   */
  round(after: string | null): Promise<ChainRound>;
}

/**
 * Follows the audit chain of each tenant with subscriptions, from its cursor, by event type
 * through the chain's (tenant, type, seq) index: the events subscriptions take are already
 * recorded there (with their own outboxes seeing that they are), so nothing in the domains that
 * record them needs to know of webhooks. A record is dispatched before the cursor passes it, so
 * a follower that dies in between dispatches it again (its deliveries are stored once). Records
 * above the head read first are left for the next round: below the head the chain has no gap.
 */
export function createChainFollower(deps: ChainFollowerDeps): ChainFollower {
  async function followTenant(tenantId: string): Promise<number> {
    const head = (await deps.audit.head(tenantId))?.seq ?? 0;
    const cursor = (await deps.webhooks.cursor(tenantId)) ?? head;
    // Nothing linked since: the one question most rounds ask of a tenant.
    if (head <= cursor) return 0;
    const subscriptions = await deps.webhooks.subscriptionsOf(tenantId);
    const types = CHAIN_EVENT_TYPES.filter((type) => subscriptions.some((s) => s.events.includes(type)));
    if (types.length === 0) {
      // Nothing of the chain is wanted: what happens until a subscription wants it is nobody's.
      await deps.webhooks.advanceCursor(tenantId, head);
      return 0;
    }
    const limit = FOLLOW_RECORDS_PER_TENANT;
    const found: AuditRecord[] = [];
    let complete = true;
    for (const type of types) {
      const records = await deps.audit.listTypeAfter(tenantId, type, cursor, limit);
      if (records.length === limit) complete = false;
      found.push(...records);
    }
    // Each type's first `limit` after the cursor: together they hold the first `limit` of all.
    const next = found.filter((record) => record.seq <= head).sort((a, b) => a.seq - b.seq).slice(0, limit);
    for (const record of next) {
      const event = chainEventOf(record);
      if (event !== null) await deps.dispatch(tenantId, event);
    }
    const reached = complete && next.length < limit ? head : next.at(-1)?.seq ?? cursor;
    if (reached > cursor) await deps.webhooks.advanceCursor(tenantId, reached);
    return next.length;
  }

  return {
    async round(after) {
      const tenants = await deps.webhooks.followedTenants(after, FOLLOW_TENANTS_PER_ROUND);
      const round: ChainRound = { next: tenants.length < FOLLOW_TENANTS_PER_ROUND ? null : tenants.at(-1)!, tenants: tenants.length, events: 0 };
      for (const tenantId of tenants) {
        try {
          round.events += await followTenant(tenantId);
        } catch (error) {
          // One tenant's failure (its store rows, a queue away) does not hold up the others.
          deps.onError(error, tenantId);
        }
      }
      return round;
    },
  };
}

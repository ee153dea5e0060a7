import type { RedisClient } from '../../jobs/index.js';
import { QUEUE_NAMES, queuePrefix } from '../../jobs/index.js';

/** How a slice of a leased workflow ended. */
export type SliceOutcome = 'more' | 'idle' | 'failed';

export interface WorkflowTurns {
  /**
   * Puts the workflow in its tenant's ready list: at the tail, or where it is when it waits there
   * already; a workflow in a slice right now is marked to run again after it.
   */
  offer(tenantId: string, workflowId: string): Promise<void>;
  /**
   * Begins a turn of the tenant: workflows still leased by an earlier run of its turn (its worker
   * died in it) go back to the head of the list, in front of the others.
   */
  reclaim(tenantId: string): Promise<void>;
  /** Takes the workflow at the head of the tenant's list, leased under `token`; null when none waits. */
  take(tenantId: string, token: string): Promise<string | null>;
  /**
   * Ends a lease: `more` puts the workflow at the tail; `idle` (it waits or ended) lets it go, unless
   * it was offered during the slice; `failed` lets it go and counts the failure. Answers the
   * workflow's failures in a row (0 unless it failed); the count is forgotten at `maxFailures`.
   * A lease another run took over meanwhile is left alone (answers -1).
   */
  settle(tenantId: string, workflowId: string, token: string, outcome: SliceOutcome, maxFailures: number): Promise<number>;
  /** Whether the tenant has workflows waiting for a turn. */
  pending(tenantId: string): Promise<boolean>;
}

// KEYS: ready (sorted set, by turn order), leased (hash workflow → token), again (set).
const OFFER = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('SADD', KEYS[3], ARGV[1])
  return 0
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local score = 0
if last[2] then score = tonumber(last[2]) + 1 end
redis.call('ZADD', KEYS[1], score, ARGV[1])
return 1`;

// KEYS: ready, leased, again.
const RECLAIM = `
local stale = redis.call('HKEYS', KEYS[2])
if #stale == 0 then return 0 end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local score = 0
if first[2] then score = tonumber(first[2]) end
for i = 1, #stale do
  score = score - 1
  redis.call('ZADD', KEYS[1], score, stale[i])
end
redis.call('DEL', KEYS[2], KEYS[3])
return #stale`;

// KEYS: ready, leased. ARGV: token.
const TAKE = `
local popped = redis.call('ZPOPMIN', KEYS[1])
if popped[1] == nil then return false end
redis.call('HSET', KEYS[2], popped[1], ARGV[1])
return popped[1]`;

// KEYS: ready, leased, again, failures. ARGV: workflow, token, outcome, maxFailures.
const SETTLE = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return -1 end
redis.call('HDEL', KEYS[2], ARGV[1])
local again = redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[3] == 'failed' then
  local failures = redis.call('HINCRBY', KEYS[4], ARGV[1], 1)
  if failures >= tonumber(ARGV[4]) then redis.call('HDEL', KEYS[4], ARGV[1]) end
  return failures
end
redis.call('HDEL', KEYS[4], ARGV[1])
if (ARGV[3] == 'more' or again == 1) and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local score = 0
  if last[2] then score = tonumber(last[2]) + 1 end
  redis.call('ZADD', KEYS[1], score, ARGV[1])
end
return 0`;

/**
 * Per-tenant ready lists of workflows in Redis, for the tenants' turns on `workflow-run`: each
 * tenant's workflows wait in its own list, and a turn of the tenant takes them from the head and
 * runs a slice of each. Every change is one Lua script, so offers, turns and settles of any number
 * of processes interleave safely. A workflow is in the list, or leased to the slice running it, or
 * neither (it waits for a signal, ended, or waits for a retry); a worker dying mid-slice leaves its
 * leases, which the tenant's next turn puts back. The keys live under the queue's own hashtag.
 */
export function createWorkflowTurns(redis: RedisClient, prefix?: string): WorkflowTurns {
  const base = `${queuePrefix(QUEUE_NAMES.workflowRun, prefix)}:turns`;
  const keys = (tenantId: string) => {
    const of = `${base}:${tenantId}`;
    return { ready: `${of}:ready`, leased: `${of}:leased`, again: `${of}:again`, failures: `${of}:failures` };
  };
  const run = async (script: string, keyList: string[], args: Array<string | number>): Promise<unknown> =>
    redis.eval(script, keyList.length, ...keyList, ...args.map(String));

  return {
    async offer(tenantId, workflowId) {
      const k = keys(tenantId);
      await run(OFFER, [k.ready, k.leased, k.again], [workflowId]);
    },
    async reclaim(tenantId) {
      const k = keys(tenantId);
      await run(RECLAIM, [k.ready, k.leased, k.again], []);
    },
    async take(tenantId, token) {
      const k = keys(tenantId);
      return ((await run(TAKE, [k.ready, k.leased], [token])) as string | null) ?? null;
    },
    async settle(tenantId, workflowId, token, outcome, maxFailures) {
      const k = keys(tenantId);
      return Number(await run(SETTLE, [k.ready, k.leased, k.again, k.failures], [workflowId, token, outcome, maxFailures]));
    },
    async pending(tenantId) {
      return (await redis.zcard(keys(tenantId).ready)) > 0;
    },
  };
}

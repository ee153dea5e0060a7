import { groupBySlot, slotTag, type RedisClient } from '../jobs/index.js';
import { DependencyUnavailableError } from '../errors/index.js';
import { isValidTenantId } from '../kernel/index.js';
import { DEFAULT_SIGNATURE_WINDOW_SECONDS, NONCE_PATTERN } from './request-signature.js';
import { createTurnBatch } from './turn-batch.js';

/** Remembers signed-request nonces so that each is accepted once per tenant. */
export interface NonceGuard {
  /** True the first time a tenant presents the nonce within its lifetime, false on every reuse. */
  claim(tenantId: string, nonce: string): Promise<boolean>;
}

export interface NonceGuardOptions {
  /** A turn's claims go out as one script call per slot: one call on one server, one per tenant slot on a cluster. */
  redis: RedisClient;
  /** Every key is `<keyPrefix><tenantId>:<nonce>`; on a cluster `<keyPrefix>{<tenantId>}:<nonce>`, a tenant's nonces in one slot. */
  keyPrefix?: string;
  /** The timestamp window the signature check accepts (± seconds). */
  windowSeconds?: number;
  /**
   * How long a nonce is remembered. A timestamp `ts` is accepted while server time is within
   * `ts - window` … `ts + window`, so a nonce first seen at the early edge must survive two windows;
   * whole-second rounding of both clocks and the skew between API processes add up to a second or
   * more on top. Defaults to 2 × window + NONCE_TTL_MARGIN_SECONDS; anything below that is refused.
   */
  ttlSeconds?: number;
}

/** Kept beyond the two windows: whole-second rounding plus clock skew between API processes. */
export const NONCE_TTL_MARGIN_SECONDS = 60;

/** The shortest nonce lifetime that outlives every timestamp the window accepts. */
export function minimumNonceTtlSeconds(windowSeconds: number): number {
  return 2 * windowSeconds + NONCE_TTL_MARGIN_SECONDS;
}

export const DEFAULT_NONCE_KEY_PREFIX = 'pe:nonce:';

/** Most keys in one script call; a larger turn is split. */
const MAX_KEYS_PER_CALL = 1000;

/** SET key 1 EX ttl NX for every key; 1 where the key was new. */
const CLAIM_SCRIPT = `
local claimed = {}
for i, key in ipairs(KEYS) do
  claimed[i] = redis.call('SET', key, '1', 'EX', ARGV[1], 'NX') and 1 or 0
end
return claimed`;

const CLAIM_COMMAND = 'policyEngineClaimNonces';
type ClaimCommand = (keyCount: number, ...keysThenTtl: Array<string | number>) => Promise<number[]>;

/** The script as a client command: ioredis sends EVALSHA and falls back to EVAL once per server. */
function claimScript(redis: RedisClient): ClaimCommand {
  const client = redis as unknown as Record<string, ClaimCommand | undefined>;
  if (client[CLAIM_COMMAND] === undefined) redis.defineCommand(CLAIM_COMMAND, { lua: CLAIM_SCRIPT });
  return client[CLAIM_COMMAND]!.bind(redis);
}

export function createNonceGuard(options: NonceGuardOptions): NonceGuard {
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) {
    throw new RangeError(`nonce guard window must be a positive whole number of seconds, got ${windowSeconds}`);
  }
  const minimumTtl = minimumNonceTtlSeconds(windowSeconds);
  const ttlSeconds = options.ttlSeconds ?? minimumTtl;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < minimumTtl) {
    throw new RangeError(
      `nonce ttl must be a whole number of seconds of at least twice the ${windowSeconds} s window ` +
        `plus ${NONCE_TTL_MARGIN_SECONDS} s (${minimumTtl}), got ${ttlSeconds}`,
    );
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_NONCE_KEY_PREFIX;
  const claimChunk = claimScript(options.redis);

  // The claims of requests that arrive together share one round trip: under load that is most of
  // them, and one script call costs the client and Redis far less than one SET per request.
  const claimKey = createTurnBatch(async (keys: string[]): Promise<boolean[]> => {
    const claimed = new Array<boolean>(keys.length);
    const positions = keys.map((key, index) => ({ key, index }));
    await Promise.all(
      groupBySlot(options.redis, positions, ({ key }) => key).map(async (group) => {
        for (let start = 0; start < group.length; start += MAX_KEYS_PER_CALL) {
          const chunk = group.slice(start, start + MAX_KEYS_PER_CALL);
          const replies = await claimChunk(chunk.length, ...chunk.map(({ key }) => key), ttlSeconds);
          chunk.forEach(({ index }, i) => (claimed[index] = replies[i] === 1));
        }
      }),
    );
    return claimed;
  });

  return {
    async claim(tenantId, nonce) {
      // The patterns keep `:` out of both parts, so no two (tenant, nonce) pairs share a key.
      if (!isValidTenantId(tenantId)) throw new RangeError('nonce guard: malformed tenant id');
      if (!NONCE_PATTERN.test(nonce)) throw new RangeError('nonce guard: malformed nonce');
      try {
        return await claimKey(`${keyPrefix}${slotTag(options.redis, tenantId)}:${nonce}`);
      } catch (error) {
        // Nothing was claimed: the same signed request may be sent again once Redis answers.
        throw new DependencyUnavailableError('Redis (request nonces)', { cause: error });
      }
    },
  };
}

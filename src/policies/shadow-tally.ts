import type { Redis } from 'ioredis';
import type { ShadowComparison, ShadowSample, ShadowSideResult, ShadowTally } from '../evaluation/index.js';

/** How a shadow rollout's copies went; `compared` = agreed + disagreed + errors. */
export interface ShadowCounts {
  compared: number;
  agreed: number;
  disagreed: number;
  errors: number;
  skipped: number;
}

export interface ShadowReport {
  counts: ShadowCounts;
  /** The newest disagreements and errors, newest first, at most SHADOW_SAMPLE_SIZE. */
  disagreements: ShadowSample[];
}

/** The tally of every process, in Redis: counts and a bounded sample per tenant, module and rollout. */
export interface SharedShadowTally extends ShadowTally {
  read(tenantId: string, policyModule: string, rollout: number): Promise<ShadowReport>;
  /** Writes what this process counted since the last write. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Disagreements kept per rollout. */
export const SHADOW_SAMPLE_SIZE = 20;
/** A sampled result or context larger than this (as JSON) is replaced by its size. */
export const SHADOW_SAMPLE_ITEM_MAX_BYTES = 4096;
/** A rollout's tally outlives it by this long, then Redis forgets it. */
const TALLY_TTL_SECONDS = 30 * 24 * 3600;
const FIELDS = ['agreed', 'disagreed', 'errors', 'skipped'] as const;

export interface RedisShadowTallyOptions {
  redis: Redis;
  /** REDIS_KEY_PREFIX. */
  keyPrefix: string;
  /** How often the counts gathered in memory are written; default 1000 ms. */
  flushMs?: number;
  onError?: (error: unknown) => void;
}

interface Gathered {
  counts: Record<(typeof FIELDS)[number], number>;
  samples: string[];
}

/** Keeps a sampled value when small, else says how large it was: the sample stays bounded. */
function bounded(value: unknown): unknown {
  const text = JSON.stringify(value) ?? 'null';
  const bytes = Buffer.byteLength(text);
  return bytes <= SHADOW_SAMPLE_ITEM_MAX_BYTES ? value : { omitted: `${bytes} bytes, more than ${SHADOW_SAMPLE_ITEM_MAX_BYTES}` };
}

function boundedSide(side: ShadowSideResult): ShadowSideResult {
  return side.ok ? { ok: true, value: bounded(side.value) } : { ok: false, code: side.code, error: side.error.slice(0, 1000) };
}

function sampleText(sample: ShadowSample): string {
  return JSON.stringify({
    ...sample,
    stable: boundedSide(sample.stable),
    shadow: boundedSide(sample.shadow),
    ...('context' in sample ? { context: bounded(sample.context) } : {}),
  });
}

/**
 * Comparisons are summed in memory and written every `flushMs` (one pipeline for all rollouts), so
 * a shadow at 100 % costs Redis one write per rollout per second, not one per evaluation.
 */
export function createRedisShadowTally(options: RedisShadowTallyOptions): SharedShadowTally {
  const { redis } = options;
  const flushMs = options.flushMs ?? 1000;
  let gathered = new Map<string, Gathered>();
  const key = (tenantId: string, policyModule: string, rollout: number) =>
    `${options.keyPrefix}shadow:{${tenantId}:${policyModule}:${rollout}}`;

  async function flush(): Promise<void> {
    if (gathered.size === 0) return;
    const writing = gathered;
    gathered = new Map();
    const pipeline = redis.pipeline();
    for (const [base, { counts, samples }] of writing) {
      for (const field of FIELDS) if (counts[field] > 0) pipeline.hincrby(`${base}:counts`, field, counts[field]);
      pipeline.expire(`${base}:counts`, TALLY_TTL_SECONDS);
      if (samples.length > 0) {
        pipeline.lpush(`${base}:sample`, ...samples);
        pipeline.ltrim(`${base}:sample`, 0, SHADOW_SAMPLE_SIZE - 1);
        pipeline.expire(`${base}:sample`, TALLY_TTL_SECONDS);
      }
    }
    try {
      await pipeline.exec();
    } catch (error) {
      options.onError?.(error);
    }
  }

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    count(comparison) {
      const base = key(comparison.tenantId, comparison.policyModule, comparison.rollout);
      let entry = gathered.get(base);
      if (entry === undefined) {
        entry = { counts: { agreed: 0, disagreed: 0, errors: 0, skipped: 0 }, samples: [] };
        gathered.set(base, entry);
      }
      entry.counts[comparison.outcome] += 1;
      if (comparison.sample !== undefined) {
        entry.samples.push(sampleText(comparison.sample));
        if (entry.samples.length > SHADOW_SAMPLE_SIZE) entry.samples.shift();
      }
    },
    async read(tenantId, policyModule, rollout) {
      const base = key(tenantId, policyModule, rollout);
      const [stored, samples] = await Promise.all([redis.hgetall(`${base}:counts`), redis.lrange(`${base}:sample`, 0, SHADOW_SAMPLE_SIZE - 1)]);
      const count = (field: (typeof FIELDS)[number]) => Number(stored[field] ?? 0);
      const counts: ShadowCounts = {
        compared: count('agreed') + count('disagreed') + count('errors'),
        agreed: count('agreed'),
        disagreed: count('disagreed'),
        errors: count('errors'),
        skipped: count('skipped'),
      };
      return { counts, disagreements: samples.map((text) => JSON.parse(text) as ShadowSample) };
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

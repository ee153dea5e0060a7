import { groupBySlot, type RedisClient } from '../jobs/index.js';
import type { RolloutTally, RoutedObservation, ShadowComparison, ShadowSample, ShadowSideResult } from '../evaluation/index.js';

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

/** A canary's routed answers of one side: n, failures, Σ time and Σ time² (ms). */
export interface RoutedSide {
  count: number;
  failures: number;
  timeSum: number;
  timeSquares: number;
}

export interface RolloutTallyReport extends ShadowReport {
  /** The answers a canary's route chose, by side (what the guard compares). */
  routed: { stable: RoutedSide; rollout: RoutedSide };
}

/** The tally of every process, in Redis: counts and a bounded sample per tenant, module and rollout. */
export interface SharedRolloutTally extends RolloutTally {
  read(tenantId: string, policyModule: string, rollout: number): Promise<RolloutTallyReport>;
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
const SHADOW_FIELDS = ['agreed', 'disagreed', 'errors', 'skipped'] as const;
const SIDES = ['stable', 'rollout'] as const;
const SIDE_FIELDS = ['count', 'failures', 'timeSum', 'timeSquares'] as const;

export interface RedisRolloutTallyOptions {
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  keyPrefix: string;
  /** How often the counts gathered in memory are written; default 1000 ms. */
  flushMs?: number;
  onError?: (error: unknown) => void;
}

/** Every number a flush adds, by hash field (`agreed`, `rollout.failures`, …). */
type Gathered = { fields: Map<string, number>; samples: string[] };

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
 * Comparisons and routed answers are summed in memory and written every `flushMs` (one pipeline
 * for all rollouts), so a rollout costs Redis one write per second, not one per evaluation.
 */
export function createRedisRolloutTally(options: RedisRolloutTallyOptions): SharedRolloutTally {
  const { redis } = options;
  const flushMs = options.flushMs ?? 1000;
  let gathered = new Map<string, Gathered>();
  const key = (tenantId: string, policyModule: string, rollout: number) => `${options.keyPrefix}shadow:{${tenantId}:${policyModule}:${rollout}}`;

  function entryOf(tenantId: string, policyModule: string, rollout: number): Gathered {
    const base = key(tenantId, policyModule, rollout);
    let entry = gathered.get(base);
    if (entry === undefined) {
      entry = { fields: new Map(), samples: [] };
      gathered.set(base, entry);
    }
    return entry;
  }

  const add = (entry: Gathered, field: string, amount: number) => entry.fields.set(field, (entry.fields.get(field) ?? 0) + amount);

  async function flush(): Promise<void> {
    if (gathered.size === 0) return;
    const writing = gathered;
    gathered = new Map();
    // One pipeline on one server; on a cluster one per slot (a rollout's keys share its hashtag).
    await Promise.all(groupBySlot(redis, [...writing], ([base]) => base).map((group) => write(group)));
  }

  async function write(group: Array<[string, Gathered]>): Promise<void> {
    const pipeline = redis.pipeline();
    for (const [base, { fields, samples }] of group) {
      for (const [field, amount] of fields) {
        // Times are fractional: a field is always incremented the same way (HINCRBY refuses a float stored).
        if (field.endsWith('.timeSum') || field.endsWith('.timeSquares')) pipeline.hincrbyfloat(`${base}:counts`, field, amount);
        else pipeline.hincrby(`${base}:counts`, field, amount);
      }
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
    count(comparison: ShadowComparison) {
      const entry = entryOf(comparison.tenantId, comparison.policyModule, comparison.rollout);
      add(entry, comparison.outcome, 1);
      if (comparison.sample !== undefined) {
        entry.samples.push(sampleText(comparison.sample));
        if (entry.samples.length > SHADOW_SAMPLE_SIZE) entry.samples.shift();
      }
    },
    observe(observation: RoutedObservation) {
      const entry = entryOf(observation.tenantId, observation.policyModule, observation.rollout);
      const time = observation.executionTimeMs;
      add(entry, `${observation.side}.count`, 1);
      if (!observation.ok) add(entry, `${observation.side}.failures`, 1);
      add(entry, `${observation.side}.timeSum`, time);
      add(entry, `${observation.side}.timeSquares`, time * time);
    },
    async read(tenantId, policyModule, rollout) {
      const base = key(tenantId, policyModule, rollout);
      const [stored, samples] = await Promise.all([redis.hgetall(`${base}:counts`), redis.lrange(`${base}:sample`, 0, SHADOW_SAMPLE_SIZE - 1)]);
      const number = (field: string) => Number(stored[field] ?? 0);
      const side = (name: (typeof SIDES)[number]) =>
        Object.fromEntries(SIDE_FIELDS.map((field) => [field, number(`${name}.${field}`)])) as unknown as RoutedSide;
      const [agreed, disagreed, errors, skipped] = SHADOW_FIELDS.map(number) as [number, number, number, number];
      return {
        counts: { compared: agreed + disagreed + errors, agreed, disagreed, errors, skipped },
        disagreements: samples.map((text) => JSON.parse(text) as ShadowSample),
        routed: { stable: side('stable'), rollout: side('rollout') },
      };
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

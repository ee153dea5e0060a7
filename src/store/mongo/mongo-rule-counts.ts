import type { Collection } from 'mongodb';
import type { PolicyVersionDocument } from './mongo-policy-collections.js';

/** A version as a list reads it; `ruleCount` is null or absent on versions stored before it was kept. */
export interface CountedVersion {
  _id: string;
  ruleCount?: number | null;
}

/**
 * The rule counts of listed versions by `_id`, from the stored `ruleCount`. Versions stored before
 * it was kept are counted once from their `functions` (they never change), read by `_id`.
 */
export type RuleCounts = (entries: readonly CountedVersion[]) => Promise<Map<string, number>>;

export function createRuleCounts(versions: Collection<PolicyVersionDocument>): RuleCounts {
  const legacyCounts = new Map<string, number>();
  return async (entries) => {
    const counts = new Map<string, number>();
    const unknown: string[] = [];
    for (const entry of entries) {
      const count = typeof entry.ruleCount === 'number' ? entry.ruleCount : legacyCounts.get(entry._id);
      if (count === undefined) unknown.push(entry._id);
      else counts.set(entry._id, count);
    }
    if (unknown.length > 0) {
      for (const doc of await versions.find({ _id: { $in: unknown } }, { projection: { _id: 1, functions: 1 } }).toArray()) {
        legacyCounts.set(doc._id, doc.functions.length);
        counts.set(doc._id, doc.functions.length);
      }
    }
    return counts;
  };
}

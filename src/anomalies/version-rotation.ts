import type { RollupVersionKey } from '../rollups/index.js';
import { TURN_EVERY, type TakeTurn } from './event-loop-turns.js';

/**
 * The order in which a tenant's rounds go through its versions: by module, function and version.
 * A round picks the first versions after where the previous one stopped, going round to the first
 * ones when the end comes first, so every version evaluated in the window is assessed in turn
 * however many there are, and none waits more rounds than it takes to go round once.
 */

/** Sorts as the version's (module, function, version); names hold no NUL, versions are safe integers. */
function rotationKey(ref: RollupVersionKey): string {
  return `${ref.policyModule}\u0000${ref.policyFunction}\u0000${String(ref.version).padStart(16, '0')}`;
}

/** Versions sorted per slice, merged into the best so far: no sort of them all holds the event loop. */
const SORT_SLICE = 2000;

interface Keyed<T> {
  key: string;
  item: T;
}

function mergeSmallest<T>(a: Array<Keyed<T>>, b: Array<Keyed<T>>, limit: number): Array<Keyed<T>> {
  const out: Array<Keyed<T>> = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && a[i]!.key < b[j]!.key)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** The `limit` smallest by key, in order. */
async function smallest<T>(items: Array<Keyed<T>>, limit: number, turn: TakeTurn): Promise<Array<Keyed<T>>> {
  let best: Array<Keyed<T>> = [];
  for (let start = 0; start < items.length && limit > 0; start += SORT_SLICE) {
    const slice = items.slice(start, start + SORT_SLICE).sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    best = mergeSmallest(best, slice, limit);
    await turn();
  }
  return best;
}

/**
 * At most `limit` of `items`, in rotation order from the first after `after` (null: from the
 * first of all). `items` are distinct versions in any order.
 */
export async function pickInRotation<T extends RollupVersionKey>(items: readonly T[], after: RollupVersionKey | null, limit: number, turn: TakeTurn): Promise<T[]> {
  const start = after === null ? null : rotationKey(after);
  const later: Array<Keyed<T>> = [];
  const earlier: Array<Keyed<T>> = [];
  for (const [i, item] of items.entries()) {
    const key = rotationKey(item);
    (start === null || key > start ? later : earlier).push({ key, item });
    if (i % TURN_EVERY === 0) await turn();
  }
  const picked = await smallest(later, limit, turn);
  const wrapped = await smallest(earlier, limit - picked.length, turn);
  return [...picked, ...wrapped].map(({ item }) => item);
}

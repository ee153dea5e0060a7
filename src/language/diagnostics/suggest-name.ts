/**
 * "did you mean `x`" suggestions: the closest known name by edit distance (adjacent swaps count
 * as one edit), when it is close enough to be a likely typo.
 *
 * The cost is bounded whatever the names: names longer than MAX_SUGGESTED_NAME_LENGTH get no
 * suggestion, candidates whose length differs by more than the accepted distance are skipped,
 * at most MAX_SUGGESTION_CANDIDATES are compared, and the distance is computed only inside a band
 * of that width, so one candidate costs O(limit · length) instead of O(length²).
 */

/** Longer names get no suggestion: a typo in a 65-character name is not what a hint is for. */
export const MAX_SUGGESTED_NAME_LENGTH = 64;

/**
 * Candidates of a fitting length compared per suggestion, in the order given. A module can have
 * thousands of names and as many unknown ones; this keeps their product bounded.
 */
export const MAX_SUGGESTION_CANDIDATES = 256;

/** The edit distance accepted for a name of this length. */
function acceptedDistance(length: number): number {
  return length <= 3 ? 1 : length <= 6 ? 2 : 3;
}

/** Three rows reused across calls: suggesting compares many candidates, each would allocate. */
let scratch: [Int32Array, Int32Array, Int32Array] = [new Int32Array(0), new Int32Array(0), new Int32Array(0)];

function rows(cols: number): [Int32Array, Int32Array, Int32Array] {
  if (scratch[0].length < cols) scratch = [new Int32Array(cols), new Int32Array(cols), new Int32Array(cols)];
  return [...scratch];
}

/**
 * The optimal-string-alignment distance of `a` and `b` when it is at most `limit`, otherwise
 * `limit + 1`. Only cells within `limit` of the diagonal are computed; a row whose cells all
 * exceed the limit ends the computation.
 */
export function boundedEditDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  const cols = b.length + 1;
  let [prevPrev, prev, current] = rows(cols);
  prevPrev.fill(over, 0, cols);
  prev.fill(over, 0, cols);
  current.fill(over, 0, cols);
  for (let j = 0; j <= Math.min(limit, b.length); j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const low = Math.max(1, i - limit);
    const high = Math.min(b.length, i + limit);
    // Cells just outside the band keep `over`, so reads from them never count as a path.
    current[low - 1] = low === 1 && i <= limit ? i : over;
    if (high < b.length) current[high + 1] = over;
    let rowMin = current[low - 1]!;
    for (let j = low; j <= high; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(prev[j]! + 1, current[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, prevPrev[j - 2]! + 1);
      current[j] = Math.min(value, over);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return over;
    [prevPrev, prev, current] = [prev, current, prevPrev];
  }
  return Math.min(prev[b.length]!, over);
}

/** The best candidate for `name`, or null when none is close. A case-only difference always wins. */
export function suggestName(name: string, candidates: Iterable<string>): string | null {
  if (name.length > MAX_SUGGESTED_NAME_LENGTH) return null;
  const lower = name.toLowerCase();
  const limit = acceptedDistance(name.length);
  let best: string | null = null;
  let bestDistance = limit + 1;
  let compared = 0;
  for (const candidate of candidates) {
    if (candidate === name || Math.abs(candidate.length - name.length) > limit) continue;
    if (++compared > MAX_SUGGESTION_CANDIDATES) break;
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = boundedEditDistance(name, candidate, limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `"; did you mean `x`?"` or the empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const suggestion = suggestName(name, candidates);
  return suggestion === null ? '' : `; did you mean \`${suggestion}\`?`;
}

const MAX_LISTED_NAMES = 10;

/** The names in backticks, comma-separated, the first 10 only (then `…`): the choices a help lists. */
function listChoices(names: readonly string[]): string {
  const listed = names.slice(0, MAX_LISTED_NAMES).map((name) => `\`${name}\``).join(', ');
  return names.length > MAX_LISTED_NAMES ? `${listed}, …` : listed;
}

/**
 * For a name that is not among `candidates`: the message's "did you mean" (or the empty string)
 * and, when no name is close, help that lists the choices after `choose` ("name one of its rules").
 * The candidates are read once, so an iterator will do.
 */
export function nameHint(name: string, candidates: Iterable<string>, choose: string): { hint: string; help: string | undefined } {
  const names = [...candidates];
  const hint = didYouMean(name, names);
  return { hint, help: hint === '' && names.length > 0 ? `${choose}: ${listChoices(names)}` : undefined };
}

/**
 * "did you mean `x`" suggestions: the closest known name by edit distance (adjacent swaps count
 * as one edit), when it is close enough to be a likely typo.
 */

function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows = a.length + 1;
  const cols = b.length + 1;
  let prevPrev = new Array<number>(cols).fill(0);
  let prev = Array.from({ length: cols }, (_, j) => j);
  for (let i = 1; i < rows; i++) {
    const current = new Array<number>(cols).fill(0);
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(prev[j]! + 1, current[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, prevPrev[j - 2]! + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    prevPrev = prev;
    prev = current;
  }
  return prev[cols - 1]!;
}

/** The best candidate for `name`, or null when none is close. A case-only difference always wins. */
export function suggestName(name: string, candidates: Iterable<string>): string | null {
  const lower = name.toLowerCase();
  const limit = name.length <= 3 ? 1 : name.length <= 6 ? 2 : 3;
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(name, candidate, limit);
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

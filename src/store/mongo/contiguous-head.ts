/**
 * The highest n with `probe(n)` found, for numbers stored contiguously from 1 (found up to the head,
 * absent after it), starting from `known`, a number seen to exist (0 when none). Gallops up, then
 * bisects: each probe is an `_id` equality, which FerretDB serves from its index where a sorted
 * query scans. A head that moved by k since `known` costs about 2·log2(k) + 1 probes; an unmoved one, 1.
 * Returns the head and its value (null when the head is `known` itself: the caller has it).
 */
export async function contiguousHead<T>(
  probe: (n: number) => Promise<T | null>,
  known: number,
): Promise<{ head: number; value: T | null }> {
  let low = known;
  let lowValue: T | null = null;
  let high: number;
  for (let step = 1; ; step *= 2) {
    const found = await probe(low + step);
    if (found === null) {
      high = low + step;
      break;
    }
    low += step;
    lowValue = found;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const found = await probe(middle);
    if (found === null) {
      high = middle;
    } else {
      low = middle;
      lowValue = found;
    }
  }
  return { head: low, value: lowValue };
}

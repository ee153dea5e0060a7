// A line diff of two texts by longest common subsequence. Lines shared at the start and the end
// are taken off first, so the table covers only the part that changed; that part is bounded
// (MAX_CELLS) because the table grows with the product of the two line counts.

export const MAX_CELLS = 4_000_000;

/**
 * `{lines, tooLarge}`: lines as `{kind: 'same' | 'removed' | 'added', text, oldNumber, newNumber}`
 * in reading order (numbers from 1, null on the side a line is missing from); `tooLarge` when the
 * changed part exceeds MAX_CELLS (then `lines` is empty).
 */
export function lineDiff(oldText, newText) {
  // The final line break ends the last line and starts none.
  const linesOf = (text) => text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const before = linesOf(oldText);
  const after = linesOf(newText);
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const n = endBefore - start;
  const m = endAfter - start;
  if ((n + 1) * (m + 1) > MAX_CELLS) return { lines: [], tooLarge: true };

  // common[i][j]: the LCS length of before[start+i…] and after[start+j…], row-major in one array.
  const width = m + 1;
  const common = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      common[i * width + j] = before[start + i] === after[start + j] ? common[(i + 1) * width + j + 1] + 1 : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
    }
  }

  const lines = [];
  const same = (i, j) => lines.push({ kind: 'same', text: before[i], oldNumber: i + 1, newNumber: j + 1 });
  for (let k = 0; k < start; k++) same(k, k);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[start + i] === after[start + j]) {
      same(start + i, start + j);
      i++;
      j++;
    } else if (i < n && (j === m || common[(i + 1) * width + j] >= common[i * width + j + 1])) {
      // On a tie the removed line comes first: a changed line reads as the old one, then the new.
      lines.push({ kind: 'removed', text: before[start + i], oldNumber: start + i + 1, newNumber: null });
      i++;
    } else {
      lines.push({ kind: 'added', text: after[start + j], oldNumber: null, newNumber: start + j + 1 });
      j++;
    }
  }
  for (let k = 0; k < before.length - endBefore; k++) same(endBefore + k, endAfter + k);
  return { lines, tooLarge: false };
}

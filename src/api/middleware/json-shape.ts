/** What of JSON text's shape passes a bound, if anything: its nesting, or the members of one object. */
export type JsonShapeExcess = 'nesting' | 'members' | null;

/** Characters of a string read one by one before its next quote is searched for natively. */
const READ_BEFORE_SEARCH = 16;

/** Index of the quote that closes the string whose opening quote is at `open` (the text parsed as JSON already). */
function stringEnd(text: string, open: number): number {
  let i = open + 1;
  for (;;) {
    // A few characters one by one: keys and names end here, and dense escapes cost no search.
    const readEnd = Math.min(text.length, i + READ_BEFORE_SEARCH);
    for (; i < readEnd; i += 1) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i += 1;
      else if (c === 0x22) return i;
    }
    // Then the next quote, found natively; one after an odd run of backslashes is escaped (each
    // run is counted once: linear in the text).
    const quote = i >= text.length ? -1 : text.indexOf('"', i);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/**
 * One pass over JSON text: the deepest nesting of `[` and `{`, and the most members of one object
 * (colons occur only between an object's keys and values). Strings are skipped at native speed
 * (indexOf finds their closing quote): a batch's body is mostly policy sources. Stops at the first
 * bound passed.
 */
export function jsonShapeExcess(text: string, maxNesting: number, maxMembers: number): JsonShapeExcess {
  // One count per open array or object; an array's is never incremented.
  const members: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x5b || c === 0x7b) {
      if (members.push(0) > maxNesting) return 'nesting';
    } else if (c === 0x5d || c === 0x7d) members.pop();
    else if (c === 0x3a && members.length > 0) {
      const count = members[members.length - 1]! + 1;
      if (count > maxMembers) return 'members';
      members[members.length - 1] = count;
    }
  }
  return null;
}

/**
 * How a validation error lists what is wrong, bounded however much a client sent: a body with
 * 95,000 unknown keys gets the first few named and a count of the rest, never a 15 MB message.
 */

/** Most problems (or names) one message spells out; the rest are counted. */
export const LISTED_PROBLEMS_MAX = 10;

/** Longest name quoted in a message; a longer one is cut (a key may be most of a megabyte). */
export const QUOTED_NAME_MAX = 64;

/** The first LISTED_PROBLEMS_MAX items described, then `… and N more`; only those are described. */
export function listProblems<T>(items: readonly T[], describe: (item: T) => string, separator = '; '): string {
  const shown = items.slice(0, LISTED_PROBLEMS_MAX).map(describe).join(separator);
  const rest = items.length - LISTED_PROBLEMS_MAX;
  return rest > 0 ? `${shown}${separator}… and ${rest.toLocaleString('en-US')} more` : shown;
}

/** Names in backquotes, each cut to QUOTED_NAME_MAX characters: `a`, `b`, … and N more. */
export function listNames(names: readonly string[]): string {
  return listProblems(names, (name) => `\`${name.slice(0, QUOTED_NAME_MAX)}\``, ', ');
}

import { describe, expect, it } from 'vitest';
import { LISTED_PROBLEMS_MAX, listNames, listProblems } from '../problem-list.js';

describe('listProblems and listNames', () => {
  it('spell out every problem up to the cap', () => {
    const ten = Array.from({ length: LISTED_PROBLEMS_MAX }, (_, i) => `p${i}`);
    expect(listProblems(ten, (p) => p)).toBe(ten.join('; '));
    expect(listNames(['a', 'b'])).toBe('`a`, `b`');
  });

  it('name the first ten of 95,000 and count the rest, describing only those ten', () => {
    const names = Array.from({ length: 95_000 }, (_, i) => `key${i}`);
    let described = 0;
    const message = listProblems(names, (name) => {
      described += 1;
      return name;
    });
    expect(described).toBe(LISTED_PROBLEMS_MAX);
    expect(message).toBe(`${names.slice(0, 10).join('; ')}; … and 94,990 more`);
    expect(listNames(names)).toBe(`${names.slice(0, 10).map((n) => `\`${n}\``).join(', ')}, … and 94,990 more`);
  });

  it('cut a long name to 64 characters', () => {
    expect(listNames(['x'.repeat(100_000)])).toBe(`\`${'x'.repeat(64)}\``);
  });
});

import { describe, expect, it } from 'vitest';
import { compile } from '../../index.js';
import { boundedEditDistance, MAX_SUGGESTED_NAME_LENGTH, MAX_SUGGESTION_CANDIDATES, suggestName } from '../suggest-name.js';

/** The plain optimal-string-alignment distance, to compare the banded one against. */
function fullDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('suggestName', () => {
  it('suggests the closest name for ordinary typos', () => {
    const names = ['creditScore', 'income', 'age', 'applicant', 'tier'];
    expect(suggestName('creditScroe', names)).toBe('creditScore');
    expect(suggestName('incom', names)).toBe('income');
    expect(suggestName('aeg', names)).toBe('age');
    expect(suggestName('applicnat', names)).toBe('applicant');
    expect(suggestName('TIER', names)).toBe('tier');
    expect(suggestName('xyz', names)).toBeNull();
  });

  it('suggests nothing for names longer than the bound', () => {
    const long = 'a'.repeat(MAX_SUGGESTED_NAME_LENGTH + 1);
    expect(suggestName(long, [long + 'b', long.slice(1), long.toUpperCase()])).toBeNull();
    const atBound = 'a'.repeat(MAX_SUGGESTED_NAME_LENGTH);
    expect(suggestName(atBound, [atBound + 'b'])).toBe(atBound + 'b');
  });

  it('compares at most MAX_SUGGESTION_CANDIDATES candidates of a fitting length', () => {
    const others = Array.from({ length: MAX_SUGGESTION_CANDIDATES }, (_, i) => `zz${String(i).padStart(5, '0')}`);
    expect(suggestName('income', ['incone', ...others])).toBe('incone');
    expect(suggestName('income', [...others, 'incone'])).toBeNull();
    // Candidates whose length cannot fit do not count.
    expect(suggestName('income', [...others.map((o) => o + 'xxxx'), 'incone'])).toBe('incone');
  });

  it('computes the same distance as the full table within the limit', () => {
    const words = ['', 'a', 'ab', 'ba', 'abc', 'acb', 'kitten', 'sitting', 'flaw', 'lawn', 'abcdef', 'badcfe', 'creditScore', 'creditScroe'];
    for (const a of words) {
      for (const b of words) {
        for (const limit of [1, 2, 3]) {
          expect(boundedEditDistance(a, b, limit), `${a} ${b} ${limit}`).toBe(Math.min(fullDistance(a, b), limit + 1));
        }
      }
    }
  });

  it('reports the diagnostics of a module with two 16,000-character names', () => {
    const declared = 'a'.repeat(16_000);
    const used = 'a'.repeat(15_999) + 'b';
    const source = ['Module m.', 'Rule r produce Int:', `  Let ${declared} be 1.`, `  Return ${used}.`, ''].join('\n');
    const result = compile(source, 'en-US');
    expect(result.program).toBeNull();
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['PL2001']);
    expect(errors[0]!.message).not.toContain('did you mean');
    expect(source.slice(errors[0]!.span!.start, errors[0]!.span!.end)).toBe(used);
  });
});

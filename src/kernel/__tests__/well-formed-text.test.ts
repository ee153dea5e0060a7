import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, wellFormedPrefix, wellFormedText } from '../well-formed-text.js';

const PAIR = '\u{1F600}'; // one code point, two code units
const HIGH = '\uD83D';
const LOW = '\uDE00';

describe('well-formed text', () => {
  it('finds unpaired halves only, not pairs', () => {
    expect(hasLoneSurrogate(`a${PAIR}b`)).toBe(false);
    expect(hasLoneSurrogate(`a${HIGH}b`)).toBe(true);
    expect(hasLoneSurrogate(`${LOW}`)).toBe(true);
    expect(hasLoneSurrogate(`${LOW}${HIGH}`)).toBe(true);
    // The check keeps no state between calls.
    expect([1, 2, 3].map(() => hasLoneSurrogate(HIGH))).toEqual([true, true, true]);
  });

  it('replaces each unpaired half with U+FFFD and keeps pairs', () => {
    expect(wellFormedText(`${HIGH}x${PAIR}${LOW}${LOW}`)).toBe(`\uFFFDx${PAIR}\uFFFD\uFFFD`);
    expect(wellFormedText('plain')).toBe('plain');
  });

  it('cuts a prefix without leaving half a pair at its end', () => {
    expect(wellFormedPrefix(`ab${PAIR}c`, 3)).toBe('ab');
    expect(wellFormedPrefix(`ab${PAIR}c`, 4)).toBe(`ab${PAIR}`);
    expect(wellFormedPrefix('abcdef', 3)).toBe('abc');
    expect(wellFormedPrefix('ab', 10)).toBe('ab');
    expect(wellFormedPrefix('ab', 0)).toBe('');
  });
});

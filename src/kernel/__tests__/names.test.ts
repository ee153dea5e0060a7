import { describe, expect, it } from 'vitest';
import { isName, MAX_NAME_LENGTH, nameSchema } from '../names.js';

// Counted in UTF-16 units, as the store and the audit records count: 128 emoji fit, 200 (400 units) do not.
const ACCEPTED = ['a', 'acme.onboarding', 'x'.repeat(MAX_NAME_LENGTH), 'r\u{1F600}', '\u{1F600}'.repeat(MAX_NAME_LENGTH / 2)];
const REFUSED = ['', 'x'.repeat(MAX_NAME_LENGTH + 1), 'm\uD800', '\uDC00m', '\u{1F600}'.repeat(200)];

describe('a module, rule or event type name', () => {
  it('is 1 to 256 characters of well-formed text', () => {
    expect(ACCEPTED.map(isName)).toEqual(ACCEPTED.map(() => true));
    expect(REFUSED.map(isName)).toEqual(REFUSED.map(() => false));
  });

  it('is the same rule as a schema', () => {
    expect(ACCEPTED.map((name) => nameSchema.safeParse(name).success)).toEqual(ACCEPTED.map(() => true));
    expect(REFUSED.map((name) => nameSchema.safeParse(name).success)).toEqual(REFUSED.map(() => false));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, floorMod, roundHalfAway, roundToDigits } from '../numeric.js';
import { floatToText } from '../text-conversion.js';

/** Half away from zero on the shortest decimal form, done on digit strings. */
function decimalRound(x: number, digits: number): number {
  const negative = x < 0;
  const [intPart = '', fracPart = ''] = String(Math.abs(x)).split('.');
  if (fracPart.length <= digits) return x;
  let n = BigInt(intPart + fracPart.slice(0, digits));
  if (fracPart[digits]! >= '5') n += 1n;
  const magnitude = Number(`${n}e-${digits}`);
  return negative ? -magnitude : magnitude;
}

describe('numeric semantics', () => {
  it('round half away from zero, never negative zero', () => {
    expect([2.5, -2.5, 0.5, -0.5, 2.4, -2.6, 1.5, 0.49999999999999994].map(roundHalfAway)).toEqual([3, -3, 1, -1, 2, -3, 2, 0]);
    expect(Object.is(roundHalfAway(-0.2), 0)).toBe(true);
  });

  it('round to digits on the decimal form: 1.005 → 1.01, 1.255 → 1.26', () => {
    expect(roundToDigits(1.005, 2)).toBe(1.01);
    expect(roundToDigits(1.255, 2)).toBe(1.26);
    expect(roundToDigits(-1.005, 2)).toBe(-1.01);
    expect(roundToDigits(0.125, 2)).toBe(0.13);
    expect(roundToDigits(1234.5678, 2)).toBe(1234.57);
    expect(roundToDigits(5e-7, 6)).toBe(0.000001);
    expect(Object.is(roundToDigits(-0.001, 2), 0)).toBe(true);
  });

  it('round to digits decides on decimal digits even where the scaled value has no fraction precision', () => {
    // 183969284987968.49 is not representable: a binary shift would round it up to …969.
    expect(roundToDigits(-1839692.8498796849, 8)).toBe(-1839692.84987968);
    expect(roundToDigits(0.0000005, 6)).toBe(0.000001);
    expect(roundToDigits(0.0000004, 6)).toBe(0);
  });

  it('round to digits agrees with decimal rounding of the shortest form', () => {
    const notExponential = fc.double({ min: -1e7, max: 1e7, noNaN: true }).filter((x) => !String(x).includes('e'));
    fc.assert(
      fc.property(notExponential, fc.integer({ min: 0, max: 8 }), (x, digits) => {
        expect(roundToDigits(x, digits)).toBe(decimalRound(x, digits) + 0);
      }),
      { numRuns: 5000 },
    );
  });

  it('ties with few decimals are decided like a person would', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 1, max: 4 }), (n, digits) => {
        // n.44…45 with digits+1 decimals lies exactly halfway: it rounds to n.44…5, away from zero.
        const sign = n < 0 ? '-' : '';
        const x = Number(`${sign}${Math.abs(n)}.${'4'.repeat(digits)}5`);
        const expected = Number(`${sign}${Math.abs(n)}.${'4'.repeat(digits - 1)}5`);
        expect(roundToDigits(x, digits)).toBe(expected);
      }),
    );
  });

  it('floored modulo takes the sign of the divisor', () => {
    expect([floorMod(7, 3), floorMod(-7, 3), floorMod(7, -3), floorMod(-7, -3), floorMod(6, 3), floorMod(7.5, 2)]).toEqual([1, 2, -2, -1, 0, 1.5]);
    expect(Object.is(floorMod(-6, 3), 0)).toBe(true);
  });

  it('Float text keeps a fraction and never uses exponent notation', () => {
    expect([3, 2.5, -0, 1e21, 1.5e-7, -2e-7, 123456789.125].map(floatToText)).toEqual([
      '3.0',
      '2.5',
      '0.0',
      '1000000000000000000000.0',
      '0.00000015',
      '-0.0000002',
      '123456789.125',
    ]);
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Number(floatToText(x))).toBe(x + 0);
      }),
    );
  });

  it('text length counts Unicode characters', () => {
    expect(['', 'abc', '汉字', 'héllo', '😀x', '\ud800'].map(codePointLength)).toEqual([0, 3, 2, 5, 2, 1]);
  });
});

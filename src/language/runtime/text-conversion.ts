/**
 * `text(x)`: numbers in plain decimal notation (never exponent notation, which the language
 * cannot read back), a Float always with a fractional part (`3.0`), booleans as `true`/`false`
 * in every locale (a program means the same in every locale), enum values as their variant name.
 */
import type { ValueType } from '../checker/types.js';
import type { EnumInfo } from '../checker/checked-module.js';

/** Expands `1.5e-7` / `1e+21` into plain decimal digits. */
function expandExponent(s: string): string {
  const negative = s.startsWith('-');
  const body = negative ? s.slice(1) : s;
  const [mantissa = '', exponentText = '0'] = body.split('e');
  const exponent = Number(exponentText);
  const [intPart = '', fracPart = ''] = mantissa.split('.');
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}

export function intToText(value: number): string {
  return String(value);
}

export function floatToText(value: number): string {
  let s = String(value + 0);
  if (s.includes('e')) s = expandExponent(s);
  return s.includes('.') ? s : `${s}.0`;
}

export function boolToText(value: boolean): string {
  return value ? 'true' : 'false';
}

/** The text conversion for a statically known type; only scalar types reach here (checker). */
export function createTextConversion(type: ValueType, enums: ReadonlyMap<string, EnumInfo>): (value: unknown) => string {
  switch (type.kind) {
    case 'Int':
      return intToText as (value: unknown) => string;
    case 'Float':
      return floatToText as (value: unknown) => string;
    case 'Bool':
      return boolToText as (value: unknown) => string;
    case 'Text':
      return (value) => value as string;
    case 'Enum': {
      const names = enums.get(type.name)!.variants;
      return (value) => names[value as number]!;
    }
    default:
      throw new Error(`text() of a ${type.kind} value passed the checker`);
  }
}

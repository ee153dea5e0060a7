/**
 * Number semantics shared by compiled code: Int is a JS number kept inside ±(2^53−1), Float any
 * finite number; anything else is a runtime error at the node that produced it.
 */
import type { Span } from '../ast/nodes.js';
import { DivisionByZero, IntegerOverflow, ModuloByZero, NotFinite, TextTooLong } from '../diagnostics/index.js';
import { EvaluationError } from './evaluation-error.js';

export const MAX_INT = Number.MAX_SAFE_INTEGER;

export function intOverflow(span: Span): EvaluationError {
  return new EvaluationError(IntegerOverflow(), span);
}

export function notFinite(span: Span, what = 'numeric result'): EvaluationError {
  return new EvaluationError(NotFinite(what), span);
}

export function divisionByZero(span: Span): EvaluationError {
  return new EvaluationError(DivisionByZero(), span);
}

export function moduloByZero(span: Span): EvaluationError {
  return new EvaluationError(ModuloByZero(), span);
}

export function checkInt(value: number, span: Span): number {
  if (value > MAX_INT || value < -MAX_INT) throw intOverflow(span);
  return value;
}

export function checkFloat(value: number, span: Span): number {
  if (value - value !== 0) throw notFinite(span);
  return value;
}

/** Floored modulo: the result has the sign of the divisor (as Excel's MOD), -7 % 3 is 2. */
export function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r + 0;
}

/** Rounds half away from zero: 2.5 → 3, -2.5 → -3. Never returns -0. */
export function roundHalfAway(x: number): number {
  return (x < 0 ? -Math.round(-x) : Math.round(x)) + 0;
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** i);
export const MAX_ROUND_DIGITS = POWERS_OF_TEN.length - 1;

/**
 * |x| rounded half away from zero to `digits` decimals, decided digit by digit on its shortest
 * decimal form: no binary product, so no noise can turn a 4 into a 5 at any magnitude.
 */
function roundDecimalForm(magnitude: number, digits: number): number {
  const text = String(magnitude);
  const e = text.indexOf('e');
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const allDigits = whole + (dot < 0 ? '' : mantissa.slice(dot + 1));
  // How many of the digits stand before the decimal point once it is moved `digits` places right.
  const point = whole.length + exponent + digits;
  const kept = point > 0 ? allDigits.slice(0, point).padEnd(point, '0') : '0';
  const next = point >= 0 ? (allDigits[point] ?? '0') : '0';
  const units = BigInt(kept) + (next >= '5' ? 1n : 0n);
  return Number(`${units}e-${digits}`);
}

/**
 * Rounds half away from zero to `digits` decimals (0–15), on the number's shortest decimal form:
 * round(1.005, 2) is 1.01 although the binary value of 1.005 lies just below it.
 */
export function roundToDigits(x: number, digits: number): number {
  const factor = POWERS_OF_TEN[digits]!;
  const magnitude = Math.abs(x);
  const scaled = magnitude * factor;
  if (scaled >= 2 ** 52) return x;
  const fraction = scaled - Math.floor(scaled);
  // Only a near-tie can be decided wrongly by binary noise, and large scaled values carry too
  // little fraction precision to tell: settle those on the decimal form.
  const rounded =
    Math.abs(fraction - 0.5) < 1e-6 || scaled > 1e9 ? roundDecimalForm(magnitude, digits) : Math.round(scaled) / factor;
  return (x < 0 ? -rounded : rounded) + 0;
}

/** Number of Unicode code points (a CJK character or an emoji counts once). */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Longest Text a program may build; far beyond any policy's needs, well below memory trouble. */
export const MAX_TEXT_LENGTH = 2 ** 24;

export function checkTextLength(text: string, span: Span): string {
  if (text.length > MAX_TEXT_LENGTH) throw textTooLong(span);
  return text;
}

export function textTooLong(span: Span): EvaluationError {
  return new EvaluationError(TextTooLong(MAX_TEXT_LENGTH), span);
}

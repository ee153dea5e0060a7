/**
 * A rule's result → JSON within `maxResultBytes`: the internal value is measured first (stopping
 * at the limit, refusing values nested deeper than MAX_VALUE_DEPTH), and only a value that fits
 * is converted. So an oversized result costs about the limit in work and no memory, and the
 * conversion's recursion is always shallow.
 */
import type { JsonValue } from '../api-types.js';
import type { ValueType } from '../checker/types.js';
import { sharedTemplates, type Instantiate } from './closure-template.js';
import type { TypeEnvironment } from './type-environment.js';
import { createJsonSize, fixedShape, largestJsonSize, MAX_CHARACTER_BYTES, TOO_DEEP, type FixedShape } from './json-size.js';
import { createOutputConversion } from './output-conversion.js';
import { resultTooLarge, valueTooDeep } from './value-limits.js';

/** Checks a result against the limit and returns it; throws PL4006 or PL4002. */
export type ResultCheck = (value: unknown, maxBytes: number) => unknown;

export type ResultConversion = (value: unknown, maxBytes: number) => JsonValue;

/** Measures exactly; throws when the value does not fit. */
function createExactCheck(type: ValueType, env: TypeEnvironment): ResultCheck {
  const size = createJsonSize(type, env);
  return (value, maxBytes) => {
    const bytes = size(value, maxBytes);
    if (bytes === TOO_DEEP) throw valueTooDeep('the result');
    if (bytes > maxBytes) throw resultTooLarge(maxBytes);
    return value;
  };
}

/** The characters of a fixed-shape value's Texts. */
function textLength(value: unknown, texts: FixedShape['texts']): number {
  let total = 0;
  for (const path of texts) {
    let at = value;
    for (const index of path) at = (at as unknown[])[index];
    total += (at as string).length;
  }
  return total;
}

/**
 * A value of a type without lists is measured exactly only when its Texts are long enough that
 * a bound from their lengths does not already fit (see FixedShape); other values always are.
 */
export function createResultCheck(type: ValueType, env: TypeEnvironment): ResultCheck {
  const largest = largestJsonSize(type, env);
  const exact = createExactCheck(type, env);
  const shape = fixedShape(type, env);
  if (shape === null) return (value, maxBytes) => (largest <= maxBytes ? value : exact(value, maxBytes));
  const { fixed, texts } = shape;
  return (value, maxBytes) => (fixed + MAX_CHARACTER_BYTES * textLength(value, texts) <= maxBytes ? value : exact(value, maxBytes));
}

/** `make` chooses shared templates or fresh copies for the conversion (see closure-template.ts). */
export function createResultConversion(type: ValueType, env: TypeEnvironment, make: Instantiate = sharedTemplates): ResultConversion {
  const check = createResultCheck(type, env);
  const convert = createOutputConversion(type, env, make);
  return (value, maxBytes) => convert(check(value, maxBytes));
}

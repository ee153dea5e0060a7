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
import { createJsonSize, largestJsonSize, TOO_DEEP } from './json-size.js';
import { createOutputConversion } from './output-conversion.js';
import { resultTooLarge, valueTooDeep } from './value-limits.js';

/** Checks a result against the limit and returns it; throws PL4006 or PL4002. */
export type ResultCheck = (value: unknown, maxBytes: number) => unknown;

export type ResultConversion = (value: unknown, maxBytes: number) => JsonValue;

export function createResultCheck(type: ValueType, env: TypeEnvironment): ResultCheck {
  const largest = largestJsonSize(type, env);
  const size = createJsonSize(type, env);
  return (value, maxBytes) => {
    if (largest <= maxBytes) return value;
    const bytes = size(value, maxBytes);
    if (bytes === TOO_DEEP) throw valueTooDeep('the result');
    if (bytes > maxBytes) throw resultTooLarge(maxBytes);
    return value;
  };
}

/** `make` chooses shared templates or fresh copies for the conversion (see closure-template.ts). */
export function createResultConversion(type: ValueType, env: TypeEnvironment, make: Instantiate = sharedTemplates): ResultConversion {
  const check = createResultCheck(type, env);
  const convert = createOutputConversion(type, env, make);
  return (value, maxBytes) => convert(check(value, maxBytes));
}

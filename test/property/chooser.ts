import fc from 'fast-check';
import type { Chooser } from './generate-module.js';

/** The function `fc.gen()` hands to a property: draws one value from an arbitrary, shrinkably. */
export type GenFn = <T, A extends unknown[]>(arb: (...args: A) => fc.Arbitrary<T>, ...args: A) => T;

export function chooserFrom(g: GenFn): Chooser {
  return { int: (min, max) => g(fc.integer, { min, max }) };
}

export const LOCALES = ['en-US', 'zh-CN', 'de-DE'] as const;

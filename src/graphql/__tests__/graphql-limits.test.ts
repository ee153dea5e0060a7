import { describe, expect, it } from 'vitest';
import { DEFAULT_GRAPHQL_LIMITS, resolveGraphqlLimits } from '../graphql-limits.js';

describe('resolveGraphqlLimits', () => {
  it('starts from the defaults', () => {
    expect(resolveGraphqlLimits()).toEqual({
      maxDocumentBytes: 32768,
      maxTokens: 5000,
      maxDepth: 15,
      maxAliases: 30,
      maxCost: 1000,
      decisionCost: 10,
      introspection: true,
    });
    expect(resolveGraphqlLimits()).not.toBe(DEFAULT_GRAPHQL_LIMITS);
  });

  it('applies overrides', () => {
    expect(resolveGraphqlLimits({ maxDepth: 4, introspection: false })).toMatchObject({ maxDepth: 4, maxCost: 1000, introspection: false });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %s as a limit', (value) => {
    expect(() => resolveGraphqlLimits({ maxCost: value })).toThrow(/graphql limit maxCost must be a positive whole number/);
  });

  it('refuses a non-boolean introspection switch', () => {
    expect(() => resolveGraphqlLimits({ introspection: 'no' as unknown as boolean })).toThrow(/introspection must be true or false/);
  });
});

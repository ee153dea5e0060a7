import { describe, expect, it } from 'vitest';
import { EvaluationRequestError } from '../evaluation-errors.js';
import { parseBatchEvaluationBody, parseBatchItem, parseSourceEvaluationBody, parseStoredEvaluationBody } from '../evaluation-request.js';

const valid = { source: 'Module a.', functionName: 'f', context: { x: 1 }, locale: 'de' };

function problem(body: unknown): { code: string; message: string } {
  try {
    parseSourceEvaluationBody(body);
  } catch (error) {
    if (error instanceof EvaluationRequestError) {
      expect(error.status).toBe(400);
      return { code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('expected a 400');
}

describe('parseSourceEvaluationBody', () => {
  it('keeps the four fields and defaults the locale to en-US', () => {
    expect(parseSourceEvaluationBody(valid)).toEqual(valid);
    const { locale: _omitted, ...withoutLocale } = valid;
    expect(parseSourceEvaluationBody({ ...withoutLocale, context: [1, 'two'] })).toEqual({
      source: 'Module a.',
      functionName: 'f',
      context: [1, 'two'],
      locale: 'en-US',
    });
  });

  it('accepts an empty source: what it lacks is an evaluation error, not a structural one', () => {
    expect(parseSourceEvaluationBody({ ...valid, source: '' }).source).toBe('');
  });

  it.each([
    ['no body', undefined, 'the request body must be a JSON object with `source`, `functionName`, `context` and `locale` (optional) (got nothing)'],
    ['a string body', 'text', 'the request body must be a JSON object with `source`, `functionName`, `context` and `locale` (optional) (got a string of 4 characters)'],
    ['no source', { ...valid, source: undefined }, '`source` is required'],
    ['source an array', { ...valid, source: ['a'] }, '`source` must be a string (the policy source text) (got an array)'],
    ['empty functionName', { ...valid, functionName: '' }, '`functionName` must be a non-empty string of at most 256 characters (got an empty string)'],
    ['functionName too long', { ...valid, functionName: 'f'.repeat(257) }, '`functionName` must be a non-empty string of at most 256 characters (got a string of 257 characters)'],
    ['functionName with a lone surrogate', { ...valid, functionName: 'f\ud800' }, '`functionName` must be a non-empty string of at most 256 characters (got a string with unpaired surrogates)'],
    ['context null', { ...valid, context: null }, '`context` must be an object keyed by parameter name or an array in parameter order (got null)'],
    ['context a number', { ...valid, context: 3 }, '`context` must be an object keyed by parameter name or an array in parameter order (got a number)'],
    ['locale null', { ...valid, locale: null }, '`locale` must be a language tag string of 1 to 64 characters, e.g. `en-US` (got null)'],
    ['locale too long', { ...valid, locale: 'x'.repeat(65) }, '`locale` must be a language tag string of 1 to 64 characters, e.g. `en-US` (got a string of 65 characters)'],
    ['unknown fields', { ...valid, trace: true, version: 2 }, 'the request body has unknown fields `trace`, `version`; it takes `source`, `functionName`, `context` and `locale` (optional)'],
  ])('refuses %s with a message naming the field', (_label, body, message) => {
    expect(problem(body)).toEqual({ code: 'ERR_EVALUATION_REQUEST_INVALID', message });
  });
});

describe('parseBatchItem', () => {
  it('tells source items from stored-policy references', () => {
    expect(parseBatchItem(valid, 0)).toEqual({ kind: 'source', request: valid });
    expect(parseBatchItem({ policyModule: 'com.acme.x', policyFunction: 'f', context: {} }, 1)).toEqual({
      kind: 'stored',
      request: { policyModule: 'com.acme.x', policyFunction: 'f', context: {} },
    });
    expect(parseBatchItem({ policyModule: 'm', policyFunction: 'f', version: 3, context: [] }, 1)).toEqual({
      kind: 'stored',
      request: { policyModule: 'm', policyFunction: 'f', version: 3, context: [] },
    });
  });

  it('turns a malformed item into an invalid entry that names its position', () => {
    expect(parseBatchItem(7, 4)).toEqual({
      kind: 'invalid',
      code: 'ERR_EVALUATION_ITEM_INVALID',
      message: 'items[4] must be a JSON object with `source`, `functionName`, `context` and `locale` (optional) (got a number)',
    });
    expect(parseBatchItem({ ...valid, functionName: 1 }, 2)).toEqual({
      kind: 'invalid',
      code: 'ERR_EVALUATION_ITEM_INVALID',
      message: '`items[2].functionName` must be a non-empty string of at most 256 characters (got a number)',
    });
    expect(parseBatchItem({ policyModule: 'm', policyFunction: 'f', version: -1, context: {} }, 0)).toEqual({
      kind: 'invalid',
      code: 'ERR_EVALUATION_ITEM_INVALID',
      message: '`items[0].version` must be a whole number of at least 0 (0 is the built-in module) (got a number)',
    });
    // Both kinds at once is neither: the source fields win and the reference fields are unknown.
    expect(parseBatchItem({ ...valid, policyModule: 'm' }, 0)).toMatchObject({ kind: 'invalid', message: expect.stringContaining('unknown field `policyModule`') });
  });
});

describe('context depth', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };

  it('refuses a single request whose context is nested deeper than the bound, naming the setting', () => {
    expect(() => parseSourceEvaluationBody({ ...valid, context: { amount: nested(6000) } })).toThrow(
      expect.objectContaining({ status: 400, code: 'ERR_EVALUATION_CONTEXT_TOO_DEEP', message: expect.stringContaining('CONTEXT_MAX_DEPTH') }),
    );
    expect(() => parseStoredEvaluationBody({ policyModule: 'm', policyFunction: 'f', context: nested(70) })).toThrow(
      expect.objectContaining({ code: 'ERR_EVALUATION_CONTEXT_TOO_DEEP' }),
    );
  });

  it('takes a context exactly at the bound and honours a configured one', () => {
    // The context object itself is level 1.
    expect(parseSourceEvaluationBody({ ...valid, context: { a: nested(63) } }).context).toBeDefined();
    expect(() => parseSourceEvaluationBody({ ...valid, context: { a: nested(3) } }, { contextMaxDepth: 3 })).toThrow(
      expect.objectContaining({ code: 'ERR_EVALUATION_CONTEXT_TOO_DEEP' }),
    );
  });

  it('fails only the batch item with the deep context', () => {
    const entries = parseBatchEvaluationBody({ items: [valid, { ...valid, context: [nested(100)] }] }, 10);
    expect(entries.map((entry) => entry.kind)).toEqual(['source', 'invalid']);
    expect(entries[1]).toMatchObject({ code: 'ERR_EVALUATION_CONTEXT_TOO_DEEP', message: expect.stringMatching(/^items\[1\]: `context` is nested deeper than 64/) });
  });
});

describe('parseBatchEvaluationBody', () => {
  it('judges each item on its own', () => {
    expect(parseBatchEvaluationBody({ items: [valid, {}, valid] }, 10).map((entry) => entry.kind)).toEqual(['source', 'invalid', 'source']);
  });

  it('refuses a body without an items array', () => {
    expect(() => parseBatchEvaluationBody({ item: [] }, 10)).toThrow('`items` is required');
    expect(() => parseBatchEvaluationBody({ items: [valid], extra: 1 }, 10)).toThrow('the request body has unknown field `extra`');
    expect(() => parseBatchEvaluationBody({}, 10)).toThrow('`items` is required');
    expect(() => parseBatchEvaluationBody({ items: {} }, 10)).toThrow('`items` must be an array of evaluation items (got an object)');
  });

  it('takes 1 to maxItems items', () => {
    expect(parseBatchEvaluationBody({ items: [valid, valid, valid] }, 3)).toHaveLength(3);
    for (const items of [[], [valid, valid, valid, valid]]) {
      let caught: unknown;
      try {
        parseBatchEvaluationBody({ items }, 3);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(EvaluationRequestError);
      expect(caught).toMatchObject({ status: 400, code: 'ERR_EVALUATION_BATCH_SIZE_INVALID', message: expect.stringContaining('1 to 3 evaluations') });
    }
  });
});

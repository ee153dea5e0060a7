import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { executionResponse, negotiateMediaType, requestErrorResponse } from '../graphql-response.js';

describe('negotiateMediaType', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['application/*', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', 'application/json'],
    ['application/graphql-response+json;charset=utf-8, application/json', 'application/graphql-response+json'],
    ['text/html, application/json; charset=utf8', 'application/json'],
    ['text/html', null],
    ['application/json; charset=latin1', null],
  ])('%s → %s', (accept, expected) => {
    expect(negotiateMediaType(accept)).toBe(expected);
  });
});

describe('responses', () => {
  it('request errors carry no data and the given status', () => {
    const [body, init] = requestErrorResponse(403, [new GraphQLError('no', { extensions: { code: 'X' } })], 'application/json');
    expect(JSON.parse(body!)).toEqual({ errors: [{ message: 'no', extensions: { code: 'X' } }] });
    expect(init).toEqual({ status: 403, statusText: 'Forbidden', headers: { 'content-type': 'application/json; charset=utf-8' } });
  });

  it('405 names the allowed method', () => {
    const [, init] = requestErrorResponse(405, [new GraphQLError('no')], 'application/graphql-response+json', { allow: 'POST' });
    expect(init.headers).toEqual({ 'content-type': 'application/graphql-response+json; charset=utf-8', allow: 'POST' });
  });

  it('executed operations are 200 even with field errors', () => {
    const [body, init] = executionResponse({ data: { a: null }, errors: [new GraphQLError('x', { path: ['a'] })] }, 'application/json', 1000);
    expect(init.status).toBe(200);
    expect(JSON.parse(body!)).toEqual({ data: { a: null }, errors: [{ message: 'x', path: ['a'] }] });
  });

  it('an answer over its bound, or over the longest string there can be, is the 500 envelope with errors', () => {
    const message = 'the answer is larger than 100 bytes (RESPONSE_MAX_BYTES); ask for less, such as a smaller page';
    const expected = { errors: [{ message, extensions: { code: 'ERR_RESPONSE_TOO_LARGE' } }], result: null, error: message, executionTimeMs: 0, code: 'ERR_RESPONSE_TOO_LARGE' };
    // 'é' is 2 bytes of UTF-8: the answer with 45 of them is 62 characters but 107 bytes.
    for (const data of [{ a: 'x'.repeat(100) }, { a: 'é'.repeat(45) }, { a: { toJSON: () => { throw new RangeError('Invalid string length'); } } }]) {
      const [body, init] = executionResponse({ data }, 'application/graphql-response+json', 100);
      expect(init.status).toBe(500);
      expect(init.headers).toEqual({ 'content-type': 'application/graphql-response+json; charset=utf-8' });
      expect(JSON.parse(body!)).toEqual(expected);
    }
    expect(executionResponse({ data: { a: 'é'.repeat(45) } }, 'application/json', 107)[1].status).toBe(200);
  });
});

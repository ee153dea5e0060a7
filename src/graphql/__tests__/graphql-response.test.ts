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
    const [body, init] = executionResponse({ data: { a: null }, errors: [new GraphQLError('x', { path: ['a'] })] }, 'application/json');
    expect(init.status).toBe(200);
    expect(JSON.parse(body!)).toEqual({ data: { a: null }, errors: [{ message: 'x', path: ['a'] }] });
  });
});

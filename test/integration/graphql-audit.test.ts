/**
 * graphql-http's own GraphQL-over-HTTP server audits against the real endpoint. The audits send
 * unsigned requests; the fetch they are given signs each one (fresh nonce and timestamp) over
 * exactly the method, request target and body it sends, so they reach the GraphQL layer.
 */
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/request-signature.js';
import { TENANTS, startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

let h: GraphqlHarness;
beforeAll(async () => {
  h = await startGraphqlHarness();
});
afterAll(async () => {
  await h.close();
});

function signingFetch(role: string): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? 'GET').toUpperCase();
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new TypeError('the audits send string bodies; anything else would need its exact bytes here');
    }
    const body = init.body ?? '';
    const headers = new Headers(init.headers);
    const signed = signRequest({ method, pathWithQuery: url.pathname + url.search, body, tenantId: 'acme', role, secret: TENANTS.acme });
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    return fetch(url, { ...init, method, headers });
  };
}

/**
 * The three SHOULDs the endpoint does not follow on purpose: with `Accept: application/json` the
 * audits want 200 for a document that does not parse, validate or coerce, while the interface
 * spec makes every structurally invalid request a 400, whatever the client accepts.
 */
const SHOULDS_NOT_FOLLOWED = ['572B', 'FDE2', '7B9B'];

describe('GraphQL over HTTP audits (graphql-http serverAudits)', () => {
  const audits = serverAudits({ url: () => `${h.baseUrl}/graphql`, fetchFn: signingFetch('MEMBER') });

  it.each(audits.filter((audit) => audit.name.startsWith('MUST')).map((audit) => [`${audit.id} ${audit.name}`, audit] as const))(
    '%s',
    async (_title, audit) => {
      const result = await audit.fn();
      expect(result.status, result.status === 'ok' ? '' : `${result.reason}: ${JSON.stringify(await bodyOf(result))}`).toBe('ok');
    },
  );

  it('passes every SHOULD and MAY but the three the interface spec overrides', async () => {
    const failed: string[] = [];
    for (const audit of audits.filter((a) => !a.name.startsWith('MUST'))) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(audit.id);
    }
    expect(failed.sort()).toEqual([...SHOULDS_NOT_FOLLOWED].sort());
  });

  it('runs all of them through the signature check: the same audits unsigned are refused', async () => {
    const unsigned = serverAudits({ url: () => `${h.baseUrl}/graphql` });
    const accept = unsigned.find((audit) => audit.id === '4655')!;
    const result = await accept.fn();
    expect(result.status).toBe('error');
  });
});

async function bodyOf(result: { status: string; response?: Response }): Promise<unknown> {
  if (result.status === 'ok' || !result.response) return null;
  return result.response.clone().text().catch(() => null);
}

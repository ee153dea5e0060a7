import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Response as GraphqlHttpResponse } from 'graphql-http';
import { errorEnvelope, isExposedError, jsonAnswer } from '../api/index.js';

export type GraphqlMediaType = 'application/graphql-response+json' | 'application/json';

/**
 * The media type graphql-http answers with for an Accept header (the same first-match rule, so
 * responses built here match the ones it builds): `application/graphql-response+json` when asked
 * for, `application/json` for `application/json`, `application/*`, `*\/*` or no Accept at all.
 */
export function negotiateMediaType(accept: string | null | undefined): GraphqlMediaType | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') {
      return 'application/graphql-response+json';
    }
    if (
      (mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    ) {
      return 'application/json';
    }
  }
  return null;
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 403: 'Forbidden', 405: 'Method Not Allowed' };

/**
 * A GraphQL response carrying request errors only (no `data`: nothing executed). The status is
 * the endpoint's whatever the Accept header: a request the endpoint refuses is a 4xx (interface
 * spec: structurally invalid → 400, insufficient role → 403).
 */
export function requestErrorResponse(
  status: 400 | 403 | 405,
  errors: readonly GraphQLError[],
  mediaType: GraphqlMediaType,
  headers: Record<string, string> = {},
): GraphqlHttpResponse {
  return [
    JSON.stringify({ errors }),
    {
      status,
      statusText: STATUS_TEXT[status] ?? 'Error',
      headers: { 'content-type': `${mediaType}; charset=utf-8`, ...headers },
    },
  ];
}

/**
 * An executed operation: 200 whether or not some fields failed (their errors sit beside the data
 * that did resolve, which is GraphQL's partial-result contract). An answer larger than `maxBytes`
 * (the cost limit should have stopped its query) is the service envelope with `errors`, 500
 * ERR_RESPONSE_TOO_LARGE, never a failed serialisation.
 */
export function executionResponse(result: ExecutionResult, mediaType: GraphqlMediaType, maxBytes: number): GraphqlHttpResponse {
  const headers = { 'content-type': `${mediaType}; charset=utf-8` };
  try {
    return [jsonAnswer(result, maxBytes), { status: 200, statusText: 'OK', headers }];
  } catch (error) {
    if (!isExposedError(error)) throw error;
    const body = { errors: [{ message: error.message, extensions: { code: error.code } }], ...errorEnvelope(error.code, error.message) };
    return [JSON.stringify(body), { status: error.status, statusText: 'Internal Server Error', headers }];
  }
}

// What the soak sends: the kinds of request, how each is built (signed ones signed when sent, with a
// fresh nonce, as a client does) and what counts as its failure. The single requests rotate through
// SINGLE_ROTATION; batches and workflows come at fixed rates of their own (see run.mjs).
import { signRequest } from '../../dist/src/auth/request-signature.js';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { DEPLOY_ROLE, ROLE, TENANT } from '../support/bench-service.mjs';
import { GRAPHQL_QUERY, GRAPHQL_SAMPLES } from '../support/graphql-decision.mjs';

export const LOAN_MODULE = 'bench.loan';
export const BATCH_ITEMS = 50;

const SOURCE_PATH = '/api/v1/policies/evaluate-source';
const BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
const DEPLOYED_PATH = '/api/v1/policies/evaluate';
const GRAPHQL_PATH = '/graphql';


/** Signed (HMAC v1) request headers for `body`, made now, as `role`. */
export function signedHeaders(method, path, body, secret, role = ROLE) {
  return { ...signRequest({ method, pathWithQuery: path, body, tenantId: TENANT, role, secret }), 'content-type': 'application/json' };
}

export const bearerHeaders = (token) => ({ authorization: `Bearer ${token}`, 'x-tenant-id': TENANT, 'content-type': 'application/json' });

/** Any non-2xx answer or network error, by its code. */
export function transportFailure(answer) {
  if (answer.status === 0) return answer.networkError;
  if (answer.status < 200 || answer.status >= 300) return answer.body?.code ?? `HTTP_${answer.status}`;
  return null;
}

/** An evaluation answered 200 with an error in it (the policy failed) is a failure too. */
const evaluationFailure = (body) => (body?.error === null && body?.result !== undefined ? null : `evaluation ${body?.code ?? 'ANSWER_MALFORMED'}`);

/**
 * The request kinds: `build(i)` gives `{method, path, headers, body}` of the i-th request of the kind,
 * `failure(answer)` its failure code or null, `evaluations` how many evaluations an answer holds.
 */
export function requestKinds({ secret, token }) {
  const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context, locale: 'en-US' }));
  const deployedBodies = SAMPLES.map((context) => JSON.stringify({ policyModule: LOAN_MODULE, policyFunction: FUNCTION_NAME, context }));
  const graphqlBodies = GRAPHQL_SAMPLES.map(([application, applicant]) => JSON.stringify({ query: GRAPHQL_QUERY, variables: { application, applicant } }));
  const batchBody = JSON.stringify({
    items: Array.from({ length: BATCH_ITEMS }, (_, i) => ({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context: SAMPLES[i % SAMPLES.length], locale: 'en-US' })),
  });
  const signedPost = (path, body) => ({ method: 'POST', path, headers: signedHeaders('POST', path, body, secret), body });
  return {
    'evaluate-source, signed': {
      evaluations: 1,
      build: (i) => signedPost(SOURCE_PATH, sourceBodies[i % sourceBodies.length]),
      failure: (answer) => transportFailure(answer) ?? evaluationFailure(answer.body),
    },
    'deployed policy, bearer': {
      evaluations: 1,
      build: (i) => ({ method: 'POST', path: DEPLOYED_PATH, headers: bearerHeaders(token), body: deployedBodies[i % deployedBodies.length] }),
      failure: (answer) => transportFailure(answer) ?? evaluationFailure(answer.body),
    },
    'deployed policy, signed': {
      evaluations: 1,
      build: (i) => signedPost(DEPLOYED_PATH, deployedBodies[i % deployedBodies.length]),
      failure: (answer) => transportFailure(answer) ?? evaluationFailure(answer.body),
    },
    'GraphQL decision, signed': {
      evaluations: 1,
      build: (i) => signedPost(GRAPHQL_PATH, graphqlBodies[i % graphqlBodies.length]),
      failure: (answer) =>
        transportFailure(answer) ??
        (answer.body?.errors !== undefined || typeof answer.body?.data?.evaluateLoanEligibility?.eligible !== 'boolean' ? 'GraphQL errors' : null),
    },
    [`batch of ${BATCH_ITEMS}, signed`]: {
      evaluations: BATCH_ITEMS,
      build: () => signedPost(BATCH_PATH, batchBody),
      failure: (answer) => {
        const failed = transportFailure(answer);
        if (failed !== null) return failed;
        const results = answer.body?.results;
        if (!Array.isArray(results) || results.length !== BATCH_ITEMS) return 'batch answer malformed';
        return results.map((result) => evaluationFailure(result)).find((code) => code !== null) ?? null;
      },
    },
  };
}

/** The rotation of single requests: 3/8 evaluate-source, 2/8 deployed with a token, 1/8 deployed signed, 2/8 GraphQL. */
export const SINGLE_ROTATION = [
  'evaluate-source, signed',
  'deployed policy, bearer',
  'GraphQL decision, signed',
  'evaluate-source, signed',
  'deployed policy, signed',
  'GraphQL decision, signed',
  'evaluate-source, signed',
  'deployed policy, bearer',
];

export const BATCH_KIND = `batch of ${BATCH_ITEMS}, signed`;

/** Deploys the loan-pricing module the deployed-policy requests name. */
export async function deployLoanModule(client, secret) {
  const body = JSON.stringify({ source: POLICY_SOURCE, locale: 'en-US' });
  const answer = await client.request('POST', '/api/v1/policies', signedHeaders('POST', '/api/v1/policies', body, secret, DEPLOY_ROLE), body);
  if (answer.status !== 201) throw new Error(`deploying ${LOAN_MODULE} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
}

// The deployed route as the benchmarks drive it: the loan-pricing module deployed as `bench.loan` on a
// prepared, running service, then evaluated by name with one bearer token, the samples in rotation.
import { createJwtKeyRing, createTokenSigner } from '../../dist/src/auth/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { DEPLOY_ROLE, TENANT } from './bench-service.mjs';
import { signedPost } from './signed-requests.mjs';

/** Deploys the module; autocannon requests of `POST /api/v1/policies/evaluate`, one per sample. */
export async function deployedRouteRequests(service) {
  const deployed = await signedPost(service.base, '/api/v1/policies', JSON.stringify({ source: POLICY_SOURCE, locale: 'en-US' }), service.secret, DEPLOY_ROLE);
  if (deployed.status !== 201) throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  const [kid, secret] = service.env.JWT_KEYS.split(':');
  const token = await createTokenSigner(createJwtKeyRing([{ kid, secret }], 'bench')).sign({ subject: 'bench', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds: 3600 });
  const headers = { 'content-type': 'application/json', 'x-tenant-id': TENANT, authorization: `Bearer ${token}` };
  return SAMPLES.map((context) => ({
    method: 'POST',
    path: '/api/v1/policies/evaluate',
    headers,
    body: JSON.stringify({ policyModule: 'bench.loan', policyFunction: FUNCTION_NAME, context }),
  }));
}

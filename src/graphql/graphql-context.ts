import type { Role } from '../auth/index.js';
import type { DecideFn } from './decide.js';
import type { ErrorLog } from './decision-errors.js';
import type { PolicyReader } from './policy-reader.js';

/**
 * Per request: who asks (from the verified signature) and what answers. A type literal, not an
 * interface, so that it satisfies graphql-http's `OperationContext` (an index-signature type).
 */
export type GraphqlContext = {
  tenantId: string;
  role: Role;
  policies: PolicyReader;
  decide: DecideFn;
  log: ErrorLog;
};

// The endpoint reads policies through the registry's tenant-scoped lookup; the shapes are defined
// once, in policies/, and named here as the GraphQL layer speaks of them.
import type { PolicyLookup, PolicyLookupView } from '../policies/index.js';

export { POLICY_STATUSES, type PolicyStatus } from '../policies/index.js';

/** One stored policy (one rule of one deployed module version), as the `Policy` type shows it. */
export type PolicyView = PolicyLookupView;

/** What the endpoint needs from the policy registry: tenant-scoped reads only. */
export type PolicyReader = PolicyLookup;

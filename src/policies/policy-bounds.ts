/**
 * The registry's bounds, one home each: what a tenant may store, and how much of it one answer
 * carries. The Limits table of docs/configuration.md lists them.
 */

/** Rules one deployed module version may define (a deploy with more is a 400). */
export const MAX_RULES_PER_MODULE = 256;

/**
 * Module versions a tenant may store, across its modules. Versions are kept for good (the audit
 * chain and rollbacks refer to them), so this is what the tenant may ever deploy.
 */
export const MAX_VERSIONS_PER_TENANT = 1000;

/** Policies per page of a policy list (REST `size`, GraphQL `listPolicies(size:)`). */
export const POLICY_PAGE_DEFAULT_SIZE = 20;
export const POLICY_PAGE_MAX_SIZE = 100;
/** Keeps page × size a safe offset; pages past the last one are empty. */
export const POLICY_PAGE_MAX_PAGE = 1_000_000;

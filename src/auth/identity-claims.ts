import { isValidTenantId, looksLikeServiceActor } from '../kernel/index.js';
import type { Principal } from './principal.js';
import { highestRole } from './roles.js';

/** Which claims of an identity provider's token name the subject, the tenant and the role. */
export interface IdentityClaimNames {
  /** JWT_SUBJECT_CLAIM, default `sub`. */
  subject: string;
  /** JWT_TENANT_CLAIM, default `tenant`. */
  tenant: string;
  /** JWT_ROLE_CLAIM, default `role`: a role name or a list of them. */
  role: string;
}

/** A claim is missing or unusable; the message names it and says what it must be. */
export class IdentityClaimError extends Error {
  override readonly name = 'IdentityClaimError';
}

/**
 * A claim by name: the top-level claim of exactly that name first (Auth0's namespaced claims are
 * URLs with dots in them), else a dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function claimAt(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Why a subject that reads as a service actor is refused; every kind of token says it the same way. */
export const SERVICE_ACTOR_REFUSAL = 'may not start with `signed:`, `gateway:`, `system:` or `workflow:`, in any case or spacing: the service names those actors';

/** Longest subject recorded as an audit actor; the interface's actor ids are short names. */
const MAX_SUBJECT_LENGTH = 256;

/**
 * The principal an identity provider's verified claims describe. Role names are matched without
 * regard to case (providers tend to write `admin`), and of a list the highest known role counts;
 * unknown names are ignored, and a token with no known role is authenticated but may do nothing.
 */
export function principalFromIdentityClaims(payload: Readonly<Record<string, unknown>>, names: IdentityClaimNames): Principal {
  const subject = claimAt(payload, names.subject);
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH) {
    throw new IdentityClaimError(`claim \`${names.subject}\` (JWT_SUBJECT_CLAIM) must be a string of 1-${MAX_SUBJECT_LENGTH} characters`);
  }
  if (looksLikeServiceActor(subject)) {
    throw new IdentityClaimError(`claim \`${names.subject}\` (JWT_SUBJECT_CLAIM) ${SERVICE_ACTOR_REFUSAL}`);
  }
  const tenantId = claimAt(payload, names.tenant);
  if (typeof tenantId !== 'string' || !isValidTenantId(tenantId)) {
    throw new IdentityClaimError(`claim \`${names.tenant}\` (JWT_TENANT_CLAIM) must be a tenant id: 1-64 letters, digits, '_' or '-'`);
  }
  const role = claimAt(payload, names.role);
  const roleNames = typeof role === 'string' ? [role] : Array.isArray(role) ? role : undefined;
  if (roleNames === undefined) {
    throw new IdentityClaimError(`claim \`${names.role}\` (JWT_ROLE_CLAIM) must be a role name or a list of role names`);
  }
  // ASCII letters only: full Unicode case rules turn `admın` (dotless ı) into ADMIN.
  const upperCased = roleNames.map((name) => (typeof name === 'string' ? name.replace(/[a-z]/g, (letter) => letter.toUpperCase()) : name));
  return Object.freeze({ subject, tenantId, role: highestRole(upperCased), authMethod: 'bearer' });
}

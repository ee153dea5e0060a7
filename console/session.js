// The signed-in operator: the bearer token, kept in this tab's sessionStorage only (gone when the
// tab closes), and what its claims say. The claims are decoded without verifying the signature:
// the console only needs the tenant for X-Tenant-ID and the role to hide what the server would
// refuse anyway; the server verifies every request.

const STORAGE_KEY = 'policy-engine-console.token';
export const ROLES = ['VIEWER', 'MEMBER', 'ADMIN', 'OWNER'];

function decodeBase64Url(part) {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The session a token opens, or an Error saying why it cannot be used. */
export function sessionOf(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return new Error('This is not a bearer token (a JWT has three parts separated by dots).');
  let claims;
  try {
    claims = JSON.parse(decodeBase64Url(parts[1]));
  } catch {
    return new Error('The token\'s claims cannot be read.');
  }
  if (typeof claims.tenant !== 'string' || claims.tenant === '') return new Error('The token names no tenant (claim `tenant`).');
  const roles = Array.isArray(claims.roles) ? claims.roles : [];
  const rank = Math.max(-1, ...roles.map((role) => ROLES.indexOf(role)));
  if (rank < 0) return new Error('The token carries no role (claim `roles`).');
  const expiresAt = typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) return new Error(`The token expired at ${expiresAt.toISOString()}: mint a new one.`);
  return {
    token,
    tenantId: claims.tenant,
    subject: typeof claims.sub === 'string' ? claims.sub : '',
    role: ROLES[rank],
    expiresAt,
    /** Whether the token's role is at least `role` (the server applies the same order). */
    can: (role) => rank >= ROLES.indexOf(role),
  };
}

/** The stored session, or null (none, or no longer usable). */
export function readSession() {
  const token = sessionStorage.getItem(STORAGE_KEY);
  if (!token) return null;
  const session = sessionOf(token);
  if (session instanceof Error) {
    sessionStorage.removeItem(STORAGE_KEY);
    return null;
  }
  return session;
}

export function startSession(session) {
  sessionStorage.setItem(STORAGE_KEY, session.token);
}

export function endSession() {
  sessionStorage.removeItem(STORAGE_KEY);
}

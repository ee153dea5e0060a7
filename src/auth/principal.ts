import type { Role } from './roles.js';

/**
 * Actors the service names for callers without a subject of their own: a signed request acts as
 * `signed:<tenant>`, a trusted gateway's request as `gateway:<role>`. No token's subject may look
 * like one, or the audit trail could not tell them apart.
 */
export const SERVICE_ACTOR_PREFIXES = { signed: 'signed:', gateway: 'gateway:' } as const;

export function isServiceActor(subject: string): boolean {
  return Object.values(SERVICE_ACTOR_PREFIXES).some((prefix) => subject.startsWith(prefix));
}

/** Who is calling, established by one authentication method and stored in `ctx.state.principal`. */
export interface Principal {
  /** Actor id recorded in audit records (`sub` of a bearer token, `gateway:<role>` through a gateway). */
  subject: string;
  tenantId: string;
  /** The highest role held; null when the caller holds no known role. */
  role: Role | null;
  authMethod: 'bearer' | 'signature' | 'gateway';
}

/** The part of Koa's `ctx.state` that authentication reads and writes. */
export interface AuthState {
  tenantId?: string;
  principal?: Principal;
}

import type { Role } from './roles.js';

/** Who is calling, established by one authentication method and stored in `ctx.state.principal`. */
export interface Principal {
  /** Actor id recorded in audit records (`sub` of a bearer token, `gateway:<role>` through a gateway). */
  subject: string;
  tenantId: string;
  /** The highest role held; null when the caller holds no known role. */
  role: Role | null;
  authMethod: 'bearer' | 'signature' | 'gateway';
  /** Unix seconds from which a bearer token is refused (its `exp` plus the clock tolerance): what outlives the request (a stream) ends then. */
  acceptedUntil?: number;
}

/** The part of Koa's `ctx.state` that authentication reads and writes. */
export interface AuthState {
  tenantId?: string;
  principal?: Principal;
}

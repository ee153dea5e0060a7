import type { Role } from './roles.js';

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

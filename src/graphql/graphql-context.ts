import type { AuditReceipt } from '../audit/index.js';
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
  /** Recorded as the actor of each decision's audit record. */
  actorId: string;
  policies: PolicyReader;
  decide: DecideFn;
  log: ErrorLog;
  /**
   * The receipts of the decisions this request evaluated (and so recorded), by response key: the
   * alias, or else the field's name. Decisions are root fields, so the key names one of them.
   */
  receipts: Map<string, AuditReceipt>;
};

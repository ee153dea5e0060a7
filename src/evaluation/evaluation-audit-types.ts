import { SOURCE_EVALUATED } from './source-evaluation-audit.js';
import { POLICY_EVALUATED } from './stored-evaluation-audit.js';

/** Audit event types of evaluation: of a deployed policy, and of source text sent in a request. */
export const EVALUATION_AUDIT_EVENT_TYPES = [POLICY_EVALUATED, SOURCE_EVALUATED] as const;

export { canonicalJson } from './canonical-json.js';
export { canonicalAuditContent, computeAuditHash, type AuditRecordContent } from './audit-hash.js';
export {
  normaliseAuditEvent,
  assertAuditTenantId,
  AuditEventError,
  type AuditEvent,
  type NormalisedAuditEvent,
} from './audit-event.js';
export {
  createAuditChainWriter,
  AuditWriterClosedError,
  AuditChainContentionError,
  type AuditAppendOptions,
  type AuditChainWriter,
  type AuditChainWriterOptions,
  type AuditChainWriterStats,
} from './audit-chain-writer.js';
export {
  verifyChain,
  type ChainVerification,
  type VerifyChainOptions,
  type VerifyChainProgress,
} from './verify-chain.js';
export { createChainVerifier, type ChainVerifier, type ChainVerifierOptions } from './chain-verifier.js';
export { createChainPageThreads, type ChainPageThreads } from './chain-page-threads.js';
export {
  AUDIT_LIST_DEFAULT_LIMIT,
  AUDIT_LIST_MAX_LIMIT,
  AUDIT_LIST_RECORDS_PER_POINT,
  AUDIT_LIST_SLICE,
  AUDIT_LIST_TURNS_PER_TENANT,
  auditListCost,
} from './list-limits.js';
export { createTenantTurns, type TenantTurns } from './tenant-turns.js';
export { readAuditList } from './read-audit-list.js';
export {
  GENESIS_PREVIOUS_HASH,
  type AuditChainRepository,
  type AuditQuery,
  type AuditRecord,
  type ChainHead,
} from './audit-chain-store.js';
export { AuditBatchError, AuditRecordCorruptError } from './audit-chain-errors.js';
export type { AuditClaim, AuditOutboxRepository, OwedAudit, OwedAuditEntry } from './audit-outbox-store.js';
export { newAuditOutboxLease, type AuditOutboxLease } from './audit-outbox-lease.js';
export { owedRecordId } from './owed-record-id.js';
export { createOwedRecordWriter } from './owed-record-writer.js';
export { createAuditOutboxFollower, type AuditOutbox, type AuditOutboxFollower, type FollowPass } from './audit-outbox-follower.js';

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
  createAuditRecorder,
  AuditRecorderClosedError,
  type AuditAppendOptions,
  type AuditRecorder,
  type AuditRecorderOptions,
  type AuditRecorderStats,
} from './audit-recorder.js';
export { computeAuditContentHash, type AuditReceipt } from './audit-content-hash.js';
export { createAuditLinker, newLinkerHolder, type AuditLinker, type AuditLinkerOptions } from './audit-linker.js';
export { createRedisLinkNotices, type LinkNotices } from './link-notices.js';
export type { AuditLinkRepository, HeldLease, LinkerLease, UnlinkedAuditEntry, UnlinkedAuditRecord, UnlinkedSummary } from './audit-link-store.js';
export {
  verifyChain,
  type ChainVerification,
  type VerifyChainOptions,
  type VerifyChainProgress,
} from './verify-chain.js';
export { createChainVerifier, type ChainVerifier, type ChainVerifierOptions } from './chain-verifier.js';
export { createChainPageThreads, type ChainPageThreads } from './chain-page-threads.js';
export type { StoredPageReads, StoredPageTask } from './stored-chain-walk.js';
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
  type ChainPageReader,
  type ChainPageSource,
  type StoredAuditRecord,
} from './audit-chain-store.js';
export { AuditBatchError, AuditRecordCorruptError } from './audit-chain-errors.js';
export type { AuditClaim, AuditOutboxRepository, OwedAudit, OwedAuditEntry } from './audit-outbox-store.js';
export { newAuditOutboxLease, type AuditOutboxLease } from './audit-outbox-lease.js';
export { owedRecordId } from './owed-record-id.js';
export { isAuditRecordId } from './audit-record-id.js';
export { createOwedRecordWriter } from './owed-record-writer.js';
export { createAuditOutboxFollower, type AuditOutbox, type AuditOutboxFollower, type FollowPass } from './audit-outbox-follower.js';
export { findAuditRecord, type AuditRecordSources, type FoundAuditRecord } from './find-audit-record.js';
export { createAuditTrail, type AuditTrail, type AuditTrailOptions } from './audit-trail.js';

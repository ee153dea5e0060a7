import { ANOMALY_SEVERITIES, ANOMALY_STATUSES, ANOMALY_TYPES } from '../anomalies/anomaly-enums.js';
import type { AnomalySettingsRecord } from '../anomalies/anomaly-settings-store.js';
import type {
  AnomalyKey,
  AnomalyListQuery,
  AnomalyState,
  AnomalyTransition,
  AuditedAnomalyEntry,
  OpenAnomalyQuery,
  StoredAnomaly,
} from '../anomalies/anomaly-store.js';
import { assertCount, assertPolicyName } from './policy-store-rules.js';
import { StoreArgumentError } from './store-argument-error.js';
import { compareText, normaliseInstant } from './store-rules.js';

/** Checks shared by both adapters for anomalies, so they refuse exactly the same input. */

const ANOMALY_ID = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_TEXT = 100_000;

/** Ids are opaque: letters, digits, `_`, `-` (UUIDs fit). A lookup by any other string finds nothing. */
export function isAnomalyId(id: unknown): id is string {
  return typeof id === 'string' && ANOMALY_ID.test(id);
}

function assertOneOf(value: unknown, allowed: readonly string[], field: string): void {
  if (typeof value !== 'string' || !allowed.includes(value)) throw new StoreArgumentError(`${field} must be one of ${allowed.join(', ')}`);
}

function assertText(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw new StoreArgumentError(`${field} must be a string of at most ${MAX_TEXT} characters`);
}

function assertObject(value: unknown, field: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new StoreArgumentError(`${field} must be an object`);
}

export function assertAnomalyKey(key: AnomalyKey): void {
  assertOneOf(key.type, ANOMALY_TYPES, 'type');
  assertPolicyName(key.policyModule, 'policyModule');
  assertPolicyName(key.policyFunction, 'policyFunction');
  assertCount(key.version, 'version', 0);
}

export function assertObservation(observation: StoredAnomaly['observation']): void {
  assertObject(observation, 'observation');
  normaliseInstant(observation.observedAt, 'observation.observedAt');
  assertOneOf(observation.severity, ANOMALY_SEVERITIES, 'observation.severity');
  assertText(observation.summary, 'observation.summary');
  assertObject(observation.metrics, 'observation.metrics');
  if (!Array.isArray(observation.recommendedActions) || observation.recommendedActions.some((a) => typeof a !== 'string')) {
    throw new StoreArgumentError('observation.recommendedActions must be an array of strings');
  }
}

export function assertVerification(verification: NonNullable<StoredAnomaly['verification']>): void {
  assertObject(verification, 'verification');
  normaliseInstant(verification.verifiedAt, 'verification.verifiedAt');
  assertOneOf(verification.outcome, ['RESOLVED', 'OPEN'], 'verification.outcome');
  assertText(verification.reason, 'verification.reason');
  assertObject(verification.metrics, 'verification.metrics');
}

export function assertStoredAnomaly(anomaly: StoredAnomaly): void {
  if (!isAnomalyId(anomaly.id)) throw new StoreArgumentError('id must be 1 to 128 letters, digits, `_` or `-`');
  assertAnomalyKey(anomaly);
  assertCount(anomaly.occurrence, 'occurrence', 1);
  normaliseInstant(anomaly.detectedAt, 'detectedAt');
  assertObservation(anomaly.observation);
  if (anomaly.verification !== null) assertVerification(anomaly.verification);
}

export function assertTransition(transition: AnomalyTransition): void {
  if (!isAnomalyId(transition.anomalyId)) throw new StoreArgumentError('anomalyId must be 1 to 128 letters, digits, `_` or `-`');
  assertCount(transition.seq, 'seq', 1);
  assertOneOf(transition.from, ANOMALY_STATUSES, 'from');
  assertOneOf(transition.to, ANOMALY_STATUSES, 'to');
  if (transition.note !== null) assertText(transition.note, 'note');
  assertText(transition.actorId, 'actorId');
  normaliseInstant(transition.occurredAt, 'occurredAt');
  if (transition.verification !== undefined) assertVerification(transition.verification);
  if (transition.requestRef !== undefined) assertText(transition.requestRef, 'requestRef');
}

export function assertAuditedEntry(entry: AuditedAnomalyEntry): void {
  if (!isAnomalyId(entry?.anomalyId)) throw new StoreArgumentError('anomalyId must be 1 to 128 letters, digits, `_` or `-`');
  if (entry.kind === 'transition') assertCount(entry.seq, 'seq', 1);
  else if (entry.kind !== 'detection') throw new StoreArgumentError('an audited anomaly entry is a `detection` or a `transition`');
}

/** The anomaly log's order of owed entries after claim and tenant: anomaly, its detection, then by seq. */
export function compareAuditedEntries(a: AuditedAnomalyEntry, b: AuditedAnomalyEntry): number {
  return compareText(a.anomalyId, b.anomalyId) || seqOf(a) - seqOf(b);
}

const seqOf = (entry: AuditedAnomalyEntry) => (entry.kind === 'detection' ? 0 : entry.seq);

/**
 * A transition sits on its anomaly's log: the anomaly exists, seq − 1 is stored (for seq > 1), and
 * `from` is the status it leaves (OPEN before the first change).
 */
export function assertTransitionExtends(transition: AnomalyTransition, anomalyExists: boolean, predecessor: AnomalyTransition | null): void {
  if (!anomalyExists) throw new StoreArgumentError(`anomaly \`${transition.anomalyId}\` does not exist`);
  if (transition.seq > 1 && predecessor === null) throw new StoreArgumentError(`transition ${transition.seq - 1} of anomaly \`${transition.anomalyId}\` does not exist`);
  const current = transition.seq === 1 ? 'OPEN' : predecessor!.to;
  if (transition.from !== current) throw new StoreArgumentError(`transition ${transition.seq} leaves ${transition.from}, but the anomaly is ${current}`);
}

export function assertListQuery(query: AnomalyListQuery): void {
  if (query.type !== undefined) assertOneOf(query.type, ANOMALY_TYPES, 'type');
  normaliseInstant(query.detectedFrom, 'detectedFrom');
  assertCount(query.offset, 'offset', 0);
  assertCount(query.limit, 'limit', 1);
}

export function assertOpenQuery(query: OpenAnomalyQuery): void {
  normaliseInstant(query.observedBefore, 'observedBefore');
  assertCount(query.limit, 'limit', 1);
}

/** Orders OPEN anomalies as `openObservedBefore` lists them: oldest observation first, then by id. */
export function compareByObservation(a: StoredAnomaly, b: StoredAnomaly): number {
  return Date.parse(a.observation.observedAt) - Date.parse(b.observation.observedAt) || compareText(a.id, b.id);
}

export function assertSettingsRecord(record: AnomalySettingsRecord): void {
  assertObject(record.values, 'values');
  for (const [name, value] of Object.entries(record.values)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new StoreArgumentError(`values.${name} must be a finite number`);
  }
  assertText(record.actorId, 'actorId');
  normaliseInstant(record.updatedAt, 'updatedAt');
}

/** An anomaly with the status its newest transition gives it (OPEN without one). */
export function anomalyState(anomaly: StoredAnomaly, head: Pick<AnomalyTransition, 'seq' | 'to' | 'occurredAt'> | null): AnomalyState {
  return {
    ...anomaly,
    status: head?.to ?? 'OPEN',
    statusSeq: head?.seq ?? 0,
    statusChangedAt: head?.occurredAt ?? null,
  };
}

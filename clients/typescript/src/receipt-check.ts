import { isContentHash } from './answer-receipts.js';
// The client's own canonical JSON and SHA-256 (the service's rules, RFC 8785), so it hashes exactly
// as the service does without depending on it.
import { computeAuditContentHash, computeAuditHash, isAuditRecordId, type AuditReceipt } from './audit-hash.js';
import type {
  AuditRecordView,
  ChainVerification,
  CheckReceiptOptions,
  LinkPolling,
  PolicyResponse,
  ReceiptCheck,
  ReceiptProblem,
  RequestOptions,
} from './client-types.js';
import { isRecord } from './json-object.js';
import { PolicyHttpError, PolicyProtocolError } from './policy-client-errors.js';
import { backoffDelay } from './retry-policy.js';

export const AUDIT_RECORD_PATH = '/api/v1/audit/records';
export const AUDIT_VERIFY_PATH = '/api/v1/audit/verify';

/** About 11 s at most before a record still unlinked is reported so: far beyond the measured link delay. */
export const DEFAULT_LINK_POLLING: LinkPolling = { reads: 10, delayMs: 100, maxDelayMs: 2_000 };

/** What a check uses of its client: the requests (signed, retried) and the client's clock and jitter. */
export interface ReceiptCheckContext {
  request<T>(method: string, path: string, body?: undefined, options?: RequestOptions): Promise<PolicyResponse<T>>;
  sleep(ms: number): Promise<void>;
  random(): number;
}

type CheckBase = { receipt: AuditReceipt; reads: number };
type Refutation = { problem: ReceiptProblem; message: string };

/**
 * Reads the receipt's record (again, while it waits for its link and `untilLinked` allows), and
 * checks it here rather than trusting the service: the content hash recomputed from the record's
 * fields must be the receipt's (and the service's `contentHash` must agree), the chain hash
 * recomputed from them with `seq` and `previousHash` must be the record's `hash`, and, when asked,
 * a valid verification must reach the record's seq.
 */
export async function checkReceipt(context: ReceiptCheckContext, receipt: AuditReceipt, options: CheckReceiptOptions = {}): Promise<ReceiptCheck> {
  assertReceipt(receipt);
  const { untilLinked, verifyChain, ...requestOptions } = options;
  const polling = linkPolling(untilLinked);
  const asked = { id: receipt.id, contentHash: receipt.contentHash };
  for (let reads = 1; ; reads += 1) {
    const base: CheckBase = { receipt: asked, reads };
    const record = await readRecord(context, asked.id, requestOptions);
    if (record === null) {
      return { ...base, status: 'refuted', problem: 'missing', message: `the tenant has no audit record ${asked.id}`, record: null };
    }
    const refuted = (await refuteContent(asked, record)) ?? (await refuteChainHash(record));
    if (refuted !== null) return { ...base, status: 'refuted', ...refuted, record };
    if (record.linked) return checkCoverage(context, base, record, verifyChain, requestOptions);
    if (reads >= polling.reads) return { ...base, status: 'unlinked', record };
    await context.sleep(backoffDelay(reads - 1, { baseDelayMs: polling.delayMs, maxDelayMs: polling.maxDelayMs }, context.random));
  }
}

function assertReceipt(receipt: AuditReceipt): void {
  if (!isRecord(receipt) || typeof receipt.id !== 'string' || !isAuditRecordId(receipt.id)) {
    throw new TypeError('receipt.id must be an audit record id: a UUID in lowercase hex, as X-Audit-Record-Id carries it');
  }
  if (typeof receipt.contentHash !== 'string' || !isContentHash(receipt.contentHash)) {
    throw new TypeError('receipt.contentHash must be 64 lowercase hex digits, as X-Audit-Content-Hash carries it');
  }
}

function linkPolling(untilLinked: CheckReceiptOptions['untilLinked']): LinkPolling {
  if (untilLinked === undefined || untilLinked === false) return { ...DEFAULT_LINK_POLLING, reads: 1 };
  const polling = { ...DEFAULT_LINK_POLLING, ...(untilLinked === true ? {} : untilLinked) };
  if (!Number.isInteger(polling.reads) || polling.reads < 1) throw new RangeError(`untilLinked.reads must be a whole number ≥ 1, got ${polling.reads}`);
  for (const name of ['delayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(polling[name]) || polling[name] < 0) throw new RangeError(`untilLinked.${name} must be a number ≥ 0, got ${polling[name]}`);
  }
  return polling;
}

/** The record, or null when the tenant has none with that id (404 ERR_AUDIT_RECORD_NOT_FOUND). */
async function readRecord(context: ReceiptCheckContext, id: string, options: RequestOptions): Promise<AuditRecordView | null> {
  let response: PolicyResponse<unknown>;
  try {
    response = await context.request<unknown>('GET', `${AUDIT_RECORD_PATH}/${id}`, undefined, options);
  } catch (error) {
    if (error instanceof PolicyHttpError && error.status === 404 && error.code === 'ERR_AUDIT_RECORD_NOT_FOUND') return null;
    throw error;
  }
  return asRecordView(response.body, response.status);
}

async function refuteContent(receipt: AuditReceipt, record: AuditRecordView): Promise<Refutation | null> {
  const { id, eventType, policyModule, policyFunction, actorId, occurredAt, payload } = record;
  const computed = await computeAuditContentHash(id, { eventType, policyModule, policyFunction, actorId, occurredAt, payload });
  if (computed !== receipt.contentHash) {
    const which = id === receipt.id ? `record ${id}` : `record ${id} (asked for ${receipt.id})`;
    return { problem: 'content', message: `the record does not match the receipt: the content of ${which} hashes to ${computed}, the receipt says ${receipt.contentHash}` };
  }
  if (record.contentHash !== computed) {
    return { problem: 'content-hash', message: `the service reports content hash ${record.contentHash} for record ${id}, whose content hashes to the receipt's ${computed}` };
  }
  return null;
}

async function refuteChainHash(record: AuditRecordView): Promise<Refutation | null> {
  if (!record.linked) return null;
  const { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, previousHash } = record;
  const computed = await computeAuditHash({ id, seq: seq!, eventType, policyModule, policyFunction, actorId, occurredAt, payload, previousHash: previousHash! });
  if (computed === record.hash) return null;
  return { problem: 'chain-hash', message: `record ${id} at seq ${seq} has hash ${record.hash}, but its fields with seq and previousHash hash to ${computed}` };
}

/** A linked record whose hashes hold; with `verifyChain`, also covered by a valid verification. */
async function checkCoverage(
  context: ReceiptCheckContext,
  base: CheckBase,
  record: AuditRecordView,
  verifyChain: CheckReceiptOptions['verifyChain'],
  options: RequestOptions,
): Promise<ReceiptCheck> {
  const seq = record.seq!;
  const link = { seq, hash: record.hash!, previousHash: record.previousHash! };
  if (verifyChain === undefined || verifyChain === false) return { ...base, status: 'linked', record, ...link, verifiedHeadSeq: null };
  const full = verifyChain !== true && verifyChain.full === true;
  const response = await context.request<unknown>('GET', full ? `${AUDIT_VERIFY_PATH}?full=true` : AUDIT_VERIFY_PATH, undefined, options);
  const verification = asVerification(response.body, response.status);
  const refuted = (problem: ReceiptProblem, message: string): ReceiptCheck => ({ ...base, status: 'refuted', problem, message, record });
  if (!verification.valid) {
    return refuted('chain-invalid', `the tenant's chain does not verify (first invalid seq ${verification.firstInvalidSeq}: ${verification.reason})`);
  }
  if (verification.headSeq < seq) return refuted('not-covered', `the verified chain ends at seq ${verification.headSeq}, before the record's seq ${seq}`);
  if (verification.headSeq === seq && verification.headHash !== link.hash) {
    return refuted('not-covered', `the verified chain's record at seq ${seq} has hash ${verification.headHash}, not the record's ${link.hash}`);
  }
  return { ...base, status: 'linked', record, ...link, verifiedHeadSeq: verification.headSeq };
}

const nullableString = (value: unknown) => value === null || typeof value === 'string';
const isHash = (value: unknown) => typeof value === 'string' && isContentHash(value);

/** A record answer, checked field by field: a PolicyProtocolError when it is not one. */
export function asRecordView(body: unknown, status: number): AuditRecordView {
  const fail = (what: string): never => {
    throw new PolicyProtocolError(`audit record answer ${what}`, status, body);
  };
  if (!isRecord(body)) return fail('is not a JSON object');
  const { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, hash, previousHash, linked, contentHash } = body;
  if (typeof id !== 'string' || typeof eventType !== 'string' || typeof actorId !== 'string' || typeof occurredAt !== 'string') {
    return fail('lacks id, eventType, actorId or occurredAt as strings');
  }
  if (!nullableString(policyModule) || !nullableString(policyFunction)) return fail('has a policyModule or policyFunction that is neither a string nor null');
  if (!isRecord(payload)) return fail('has no payload object');
  if (typeof linked !== 'boolean' || !isHash(contentHash)) return fail('lacks linked (a boolean) or contentHash (64 lowercase hex digits)');
  if (linked && !(Number.isSafeInteger(seq) && (seq as number) >= 1 && isHash(hash) && isHash(previousHash))) {
    return fail('is linked without a seq ≥ 1, a hash and a previousHash');
  }
  if (!linked && (seq !== null || hash !== null || previousHash !== null)) return fail('is not linked, yet has a seq, hash or previousHash');
  return {
    id,
    seq: seq as number | null,
    eventType,
    policyModule: policyModule as string | null,
    policyFunction: policyFunction as string | null,
    actorId,
    occurredAt,
    payload,
    hash: hash as string | null,
    previousHash: previousHash as string | null,
    linked,
    contentHash: contentHash as string,
  };
}

/** A verification answer: a PolicyProtocolError when it lacks what a receipt check reads. */
export function asVerification(body: unknown, status: number): ChainVerification {
  if (!isRecord(body) || typeof body.valid !== 'boolean' || !Number.isSafeInteger(body.headSeq) || !nullableString(body.headHash)) {
    throw new PolicyProtocolError('chain verification answer lacks valid (a boolean), headSeq (a whole number) or headHash', status, body);
  }
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  return {
    ...body,
    valid: body.valid,
    checked: count(body.checked),
    headSeq: body.headSeq as number,
    headHash: body.headHash as string | null,
    firstInvalidSeq: typeof body.firstInvalidSeq === 'number' ? body.firstInvalidSeq : null,
    reason: typeof body.reason === 'string' ? body.reason : null,
    unlinked: count(body.unlinked),
    oldestUnlinkedAgeMs: typeof body.oldestUnlinkedAgeMs === 'number' ? body.oldestUnlinkedAgeMs : null,
  };
}

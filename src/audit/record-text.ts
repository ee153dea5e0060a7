// The rule's own files, not the kernel's index: verification threads load this, and the index brings zod (half a thread's start).
import { hasLoneSurrogate } from '../kernel/well-formed-text.js';

/** Text JSON.stringify writes as it is between quotes: no quote, backslash, control character or surrogate. */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string field as canonicalJson writes it, or undefined where it would refuse or write something else. */
function textField(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Ids, names, timestamps and hashes are verbatim: quoting them is a third of the cost of JSON.stringify.
  if (VERBATIM.test(value)) return `"${value}"`;
  return hasLoneSurrogate(value) ? undefined : JSON.stringify(value);
}

function optionalTextField(value: unknown): string | undefined {
  return value === null ? 'null' : textField(value);
}

/** A record's fields besides its payload, as the hashes cover them (typed loosely: stored rows are checked here). */
export interface RecordTextFields {
  actorId: unknown;
  eventType: unknown;
  id: unknown;
  occurredAt: unknown;
  policyFunction: unknown;
  policyModule: unknown;
}

/** The fields a linked record adds. */
export interface ChainTextFields {
  previousHash: unknown;
  seq: unknown;
}

/**
 * The RFC 8785 canonical JSON of a record written around `payloadText`, which the caller knows to be
 * a canonical JSON object's text: the content hash's form, or with `chain` the chain hash's. The
 * payload is neither read nor written again. Undefined when a field is not of its schema type (or
 * has no canonical form): the caller then writes the record the usual way.
 */
export function recordTextAround(fields: RecordTextFields, payloadText: string, chain?: ChainTextFields): string | undefined {
  const actorId = textField(fields.actorId);
  const eventType = textField(fields.eventType);
  const id = textField(fields.id);
  const occurredAt = textField(fields.occurredAt);
  const policyFunction = optionalTextField(fields.policyFunction);
  const policyModule = optionalTextField(fields.policyModule);
  if (actorId === undefined || eventType === undefined || id === undefined || occurredAt === undefined) return undefined;
  if (policyFunction === undefined || policyModule === undefined) return undefined;
  const content = `{"actorId":${actorId},"eventType":${eventType},"id":${id},"occurredAt":${occurredAt},"payload":${payloadText},"policyFunction":${policyFunction},"policyModule":${policyModule}`;
  if (chain === undefined) return `${content}}`;
  const previousHash = textField(chain.previousHash);
  const { seq } = chain;
  if (previousHash === undefined || typeof seq !== 'number' || !Number.isFinite(seq)) return undefined;
  return `${content},"previousHash":${previousHash},"seq":${JSON.stringify(seq)}}`;
}

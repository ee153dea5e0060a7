import { canonicalJson, NoCanonicalFormError } from './canonical-json.js';
import { hasLoneSurrogate, isName, isValidTenantId, MAX_NAME_LENGTH } from '../kernel/index.js';

/** What a caller appends; the writer adds id, seq, previousHash and hash. */
export interface AuditEvent {
  eventType: string;
  policyModule?: string | null;
  policyFunction?: string | null;
  actorId: string;
  payload: Record<string, unknown>;
  /** Defaults to the time of the append. */
  occurredAt?: string | Date;
}

/** An event exactly as it will be hashed and stored. */
export interface NormalisedAuditEvent {
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

export class AuditEventError extends Error {
  override readonly name = 'AuditEventError';
}

export function assertAuditTenantId(tenantId: unknown): asserts tenantId is string {
  if (typeof tenantId !== 'string' || !isValidTenantId(tenantId)) {
    throw new AuditEventError('tenant id must be 1 to 64 letters, digits, `_` or `-`');
  }
}

/** A name the record holds (the actor's id bounded alike): the kernel's name rule. */
function requiredName(value: unknown, field: string): string {
  if (typeof value === 'string' && isName(value)) return value;
  // Canonical JSON (RFC 8785) has no form for a lone surrogate.
  if (typeof value === 'string' && hasLoneSurrogate(value)) throw new AuditEventError(`\`${field}\` contains a lone surrogate`);
  throw new AuditEventError(`\`${field}\` must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
}

function optionalName(value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : requiredName(value, field);
}

/**
 * The payload as it will be hashed and stored: a detached copy (later changes by the caller cannot
 * alter it) with its members in canonical order, and its canonical text. Only what has an RFC 8785
 * form is taken (plain JSON, no lone surrogates, finite numbers; canonicalJson states the rule), so
 * nothing JSON would silently change reaches the hash.
 */
function canonicalPayload(payload: Record<string, unknown>): { payload: Record<string, unknown>; payloadText: string } {
  try {
    const payloadText = canonicalJson(payload);
    return { payload: JSON.parse(payloadText) as Record<string, unknown>, payloadText };
  } catch (error) {
    if (!(error instanceof NoCanonicalFormError)) throw error;
    throw new AuditEventError(`\`payload${error.at.slice(1)}\` ${error.problem}`);
  }
}

function instant(value: unknown): string {
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new AuditEventError('`occurredAt` must be an ISO 8601 timestamp or a Date');
  const text = new Date(time).toISOString();
  // Stored timestamps compare as text, which holds only for four-digit years.
  if (!/^\d{4}-/.test(text)) throw new AuditEventError('`occurredAt` must fall within the years 0000 to 9999');
  return text;
}

/** Validates an event and returns a detached copy in stored form. */
export function normaliseAuditEvent(event: AuditEvent, now: Date): NormalisedAuditEvent {
  return normaliseAuditEventWithText(event, now).event;
}

/** normaliseAuditEvent, with the payload's canonical JSON it made on the way (so nothing writes it again). */
export function normaliseAuditEventWithText(event: AuditEvent, now: Date): { event: NormalisedAuditEvent; payloadText: string } {
  if (event === null || typeof event !== 'object') throw new AuditEventError('event must be an object');
  const given = event.payload;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new AuditEventError('`payload` must be an object');
  }
  const eventType = requiredName(event.eventType, 'eventType');
  const policyModule = optionalName(event.policyModule, 'policyModule');
  const policyFunction = optionalName(event.policyFunction, 'policyFunction');
  const actorId = requiredName(event.actorId, 'actorId');
  const { payload, payloadText } = canonicalPayload(given);
  return { event: { eventType, policyModule, policyFunction, actorId, payload, occurredAt: instant(event.occurredAt ?? now) }, payloadText };
}

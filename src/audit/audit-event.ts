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
 * alter it) with its members in canonical order. Only what has an RFC 8785 form is taken (plain
 * JSON, no lone surrogates, finite numbers; canonicalJson states the rule), so nothing JSON would
 * silently change reaches the hash.
 */
function canonicalPayload(payload: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(canonicalJson(payload)) as Record<string, unknown>;
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
  if (event === null || typeof event !== 'object') throw new AuditEventError('event must be an object');
  const payload = event.payload;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new AuditEventError('`payload` must be an object');
  }
  return {
    eventType: requiredName(event.eventType, 'eventType'),
    policyModule: optionalName(event.policyModule, 'policyModule'),
    policyFunction: optionalName(event.policyFunction, 'policyFunction'),
    actorId: requiredName(event.actorId, 'actorId'),
    payload: canonicalPayload(payload),
    occurredAt: instant(event.occurredAt ?? now),
  };
}

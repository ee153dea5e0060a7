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

/** Plain JSON only: a value that JSON would silently change must not reach the hash. */
function assertJson(value: unknown, path: string): void {
  switch (typeof value) {
    case 'string':
      // Canonical JSON (RFC 8785) has no form for a lone surrogate.
      if (hasLoneSurrogate(value)) throw new AuditEventError(`\`${path}\` contains a lone surrogate`);
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new AuditEventError(`\`${path}\` must be a finite number`);
      return;
    case 'object': {
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          if (item === undefined) throw new AuditEventError(`\`${path}[${index}]\` is undefined`);
          assertJson(item, `${path}[${index}]`);
        });
        return;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        throw new AuditEventError(`\`${path}\` must be a plain object, array or JSON scalar`);
      }
      for (const [key, item] of Object.entries(value)) {
        if (hasLoneSurrogate(key)) throw new AuditEventError(`a key in \`${path}\` contains a lone surrogate`);
        // Like JSON, an absent optional field is simply not there.
        if (item !== undefined) assertJson(item, `${path}.${key}`);
      }
      return;
    }
    default:
      throw new AuditEventError(`\`${path}\` is not a JSON value (${typeof value})`);
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

/**
 * Validates an event and returns a detached copy in stored form (later changes by the caller to
 * its payload object cannot alter what is hashed).
 */
export function normaliseAuditEvent(event: AuditEvent, now: Date): NormalisedAuditEvent {
  if (event === null || typeof event !== 'object') throw new AuditEventError('event must be an object');
  const payload = event.payload;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new AuditEventError('`payload` must be an object');
  }
  assertJson(payload, 'payload');
  return {
    eventType: requiredName(event.eventType, 'eventType'),
    policyModule: optionalName(event.policyModule, 'policyModule'),
    policyFunction: optionalName(event.policyFunction, 'policyFunction'),
    actorId: requiredName(event.actorId, 'actorId'),
    // A detached copy; after assertJson, JSON round-trips it exactly (and faster than canonicalize).
    payload: JSON.parse(JSON.stringify(payload)) as Record<string, unknown>,
    occurredAt: instant(event.occurredAt ?? now),
  };
}

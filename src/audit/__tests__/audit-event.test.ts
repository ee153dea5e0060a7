import { describe, expect, it } from 'vitest';
import { AuditEventError, assertAuditTenantId, normaliseAuditEvent, type AuditEvent } from '../audit-event.js';

const now = new Date('2026-05-06T07:08:09.010Z');
const base: AuditEvent = { eventType: 'POLICY_EVALUATED', actorId: 'svc', payload: { ok: true } };

describe('normaliseAuditEvent', () => {
  it('fills defaults: null module and function, occurredAt = now', () => {
    expect(normaliseAuditEvent(base, now)).toEqual({
      eventType: 'POLICY_EVALUATED',
      policyModule: null,
      policyFunction: null,
      actorId: 'svc',
      payload: { ok: true },
      occurredAt: '2026-05-06T07:08:09.010Z',
    });
  });

  it('normalises occurredAt to UTC with milliseconds', () => {
    expect(normaliseAuditEvent({ ...base, occurredAt: '2026-01-01T01:00:00+01:00' }, now).occurredAt).toBe(
      '2026-01-01T00:00:00.000Z',
    );
    expect(normaliseAuditEvent({ ...base, occurredAt: new Date(0) }, now).occurredAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it('returns a detached payload: later changes by the caller do not reach the record', () => {
    const payload = { list: [1, { deep: 'a' }] as unknown[] };
    const event = normaliseAuditEvent({ ...base, payload }, now);
    (payload.list[1] as { deep: string }).deep = 'changed';
    payload.list.push(3);
    expect(event.payload).toEqual({ list: [1, { deep: 'a' }] });
  });

  it('drops undefined object members, as JSON does', () => {
    expect(normaliseAuditEvent({ ...base, payload: { a: 1, b: undefined } }, now).payload).toEqual({ a: 1 });
  });

  it.each([
    ['an empty event type', { ...base, eventType: '' }, /eventType/],
    ['a missing actor', { ...base, actorId: undefined as unknown as string }, /actorId/],
    ['an empty policy module', { ...base, policyModule: '' }, /policyModule/],
    ['a non-string policy function', { ...base, policyFunction: 7 as unknown as string }, /policyFunction/],
    ['a too long event type', { ...base, eventType: 'E'.repeat(257) }, /eventType.*at most 256/],
    ['a lone surrogate in the event type', { ...base, eventType: 'E\uD800' }, /eventType.*lone surrogate/],
    ['a lone surrogate in the policy function', { ...base, policyFunction: '\uDC00f' }, /policyFunction.*lone surrogate/],
    ['an array payload', { ...base, payload: [] as unknown as Record<string, unknown> }, /payload/],
    ['a null payload', { ...base, payload: null as unknown as Record<string, unknown> }, /payload/],
    ['NaN', { ...base, payload: { x: Number.NaN } }, /payload\.x.*finite/],
    ['Infinity', { ...base, payload: { x: [Infinity] } }, /payload\.x\[0\].*finite/],
    ['a bigint', { ...base, payload: { x: 1n } }, /payload\.x/],
    ['a function', { ...base, payload: { f: () => 1 } }, /payload\.f/],
    ['a Date', { ...base, payload: { d: new Date() } }, /plain object/],
    ['undefined in an array', { ...base, payload: { a: [1, undefined] } }, /payload\.a\[1\]/],
    ['a lone surrogate', { ...base, payload: { s: ['ok', 'x\uD800'] } }, /payload\.s\[1\].*lone surrogate/],
    ['a lone surrogate in a key', { ...base, payload: { '\uDC00': 1 } }, /key.*lone surrogate/],
    ['a bad occurredAt', { ...base, occurredAt: 'soon' }, /occurredAt/],
    ['a five-digit year', { ...base, occurredAt: new Date(Date.UTC(10000, 0, 1)) }, /occurredAt/],
  ])('refuses %s', (_label, event, message) => {
    expect(() => normaliseAuditEvent(event as AuditEvent, now)).toThrow(AuditEventError);
    expect(() => normaliseAuditEvent(event as AuditEvent, now)).toThrow(message);
  });
});

describe('assertAuditTenantId', () => {
  it('accepts the tenant header pattern and refuses anything else', () => {
    expect(() => assertAuditTenantId('acme_corp-1')).not.toThrow();
    for (const bad of ['', 'a:b', 'x'.repeat(65), 'ü', 3]) {
      expect(() => assertAuditTenantId(bad)).toThrow(AuditEventError);
    }
  });
});

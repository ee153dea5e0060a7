import { describe, expect, it } from 'vitest';
import { isAuditRecordId } from '../audit-record-id.js';
import { newAuditRecordId } from '../new-audit-record-id.js';

describe('newAuditRecordId', () => {
  it('is a UUID of version 7 and the RFC 9562 variant, in the shape of every record id', () => {
    const id = newAuditRecordId();
    expect(isAuditRecordId(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
  });

  it('starts with the time in milliseconds, so ids made later sort after', () => {
    const at = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
    const id = newAuditRecordId(at);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    const later = newAuditRecordId(at + 1);
    expect(later > id).toBe(true);
    expect(newAuditRecordId(at + 1000) > later).toBe(true);
  });

  it('keeps 74 random bits: ids of the same millisecond differ', () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 1000 }, () => newAuditRecordId(at)));
    expect(ids.size).toBe(1000);
    expect(new Set([...ids].map((id) => id.slice(0, 13))).size).toBe(1);
  });
});

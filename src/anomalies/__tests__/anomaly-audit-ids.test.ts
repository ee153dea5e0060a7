import { describe, expect, it } from 'vitest';
import { deployedRecordId } from '../../policies/index.js';
import { statusChangedRecordId } from '../anomaly-audit-ids.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('anomaly status change record ids', () => {
  it('are UUIDs fixed by the change that owes the record', () => {
    expect(statusChangedRecordId('acme', 'a-1', 2)).toMatch(UUID_V8);
    expect(statusChangedRecordId('acme', 'a-1', 2)).toBe(statusChangedRecordId('acme', 'a-1', 2));
  });

  it('differ for every other tenant, anomaly or seq, and from the registry’s ids', () => {
    const ids = [
      statusChangedRecordId('acme', 'a-1', 2),
      statusChangedRecordId('acme', 'a-1', 3),
      statusChangedRecordId('acme', 'a-2', 2),
      statusChangedRecordId('globex', 'a-1', 2),
      // The separator keeps a tenant and anomaly that run together apart.
      statusChangedRecordId('acme-a', '1', 2),
      deployedRecordId('acme', 'a-1', 2),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

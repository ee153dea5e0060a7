import { describe, expect, it } from 'vitest';
import { deployedRecordId, activationRecordId } from '../registry-audit-ids.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('registry audit record ids', () => {
  it('are UUIDs fixed by the entry that owes the record', () => {
    expect(deployedRecordId('acme', 'lending.loan', 3)).toMatch(UUID_V8);
    expect(activationRecordId('ROLLBACK', 'acme', 'lending.loan', 3)).toMatch(UUID_V8);
    expect(deployedRecordId('acme', 'lending.loan', 3)).toBe(deployedRecordId('acme', 'lending.loan', 3));
  });

  it('differ for every other tenant, module, number or kind of entry', () => {
    const ids = [
      deployedRecordId('acme', 'lending.loan', 3),
      deployedRecordId('acme', 'lending.loan', 4),
      deployedRecordId('globex', 'lending.loan', 3),
      deployedRecordId('acme', 'lending.loans', 3),
      activationRecordId('ROLLBACK', 'acme', 'lending.loan', 3),
      // The separator keeps a tenant and module that run together apart.
      deployedRecordId('acme-lending', 'loan', 3),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

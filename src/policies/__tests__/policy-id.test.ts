import { describe, expect, it } from 'vitest';
import { parsePolicyId, policyId, versionId } from '../policy-id.js';

describe('policy ids', () => {
  it('round-trips module, rule and version, also for dotted and non-ASCII names', () => {
    for (const [policyModule, policyFunction, version] of [
      ['lending.loan', 'evaluateLoanEligibility', 0],
      ['a', 'b', 12],
      ['健康.理赔', '处理理赔', 3],
      ['x.y.z', '_f1', 9007199254740991],
    ] as const) {
      const id = policyId(policyModule, policyFunction, version);
      expect(parsePolicyId(id)).toEqual({ policyModule, policyFunction, version });
    }
    expect(policyId('lending.loan', 'rate', 2)).toBe('lending.loan.rate@2');
    expect(versionId('lending.loan', 2)).toBe('lending.loan@2');
  });

  it('refuses anything else', () => {
    for (const id of ['', 'lending.loan', 'loan@1', '.rate@1', 'lending.@1', 'lending.loan.rate@', 'lending.loan.rate@01', 'lending.loan.rate@-1', 'lending.loan.rate@1.5', 'lending.loan.rate@99999999999999999', `${'m'.repeat(257)}.rate@1`, `lending.${'\u{1F600}'.repeat(200)}@1`, 'lending.\uD800@1']) {
      expect(parsePolicyId(id), id).toBeNull();
    }
  });
});

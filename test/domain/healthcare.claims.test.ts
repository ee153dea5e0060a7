import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

// Written in zh-CN: the module proves that a policy in another locale answers identically.
const program = compilePolicy('healthcare.claims', 'zh-CN');

function claim(overrides: JsonObject = {}): JsonObject {
  return { claimId: 'A-17', amount: 500.0, category: 'PRIMARY', diagnosisCode: 'J45.20', hasDocumentation: true, daysSinceService: 10, ...overrides };
}

function provider(overrides: JsonObject = {}): JsonObject {
  return { providerId: 'PRV-9', inNetwork: true, qualityScore: 80, ...overrides };
}

const processClaim = (c: JsonObject, p: JsonObject, patientCoverage: number) => run(program, 'processClaim', [c, p, patientCoverage]) as JsonObject;

describe('healthcare.claims.processClaim', () => {
  it('reports the module locale', () => {
    expect(program.locale).toBe('zh-CN');
  });

  it('approves a documented in-network claim at the coverage rate', () => {
    // 500 × 80 / 100 = 400
    const result = processClaim(claim(), provider(), 80);
    expect(result).toEqual({ approved: true, approvedAmount: 400, denialReason: '', requiredDocuments: [], referenceNumber: 'CLM-A-17' });
    expect(Object.keys(result)).toEqual(['approved', 'approvedAmount', 'denialReason', 'requiredDocuments', 'referenceNumber']);
  });

  it('builds the reference number from the claim id', () => {
    expect(processClaim(claim({ claimId: '2024/000123' }), provider(), 80)).toMatchObject({ referenceNumber: 'CLM-2024/000123' });
  });

  describe('required documents', () => {
    it.each<[string, JsonObject, string[]]>([
      ['amount 10000', { amount: 10_000 }, []],
      ['amount 10000.01', { amount: 10_000.01 }, ['itemized bill']],
      ['surgery', { category: 'SURGERY' }, ['operative report']],
      ['no documentation', { hasDocumentation: false }, ['proof of service']],
      ['all three, in rule order', { amount: 20_000, category: 'SURGERY', hasDocumentation: false }, ['itemized bill', 'operative report', 'proof of service']],
    ])('%s', (_name, c, requiredDocuments) => {
      expect(processClaim(claim(c), provider(), 80)).toMatchObject({ requiredDocuments });
    });

    it('are listed on a denied claim too', () => {
      expect(processClaim(claim({ amount: 20_000, category: 'SURGERY', hasDocumentation: false, daysSinceService: 400 }), provider(), 80)).toEqual({
        approved: false,
        approvedAmount: 0,
        denialReason: 'filed more than 365 days after service',
        requiredDocuments: ['itemized bill', 'operative report', 'proof of service'],
        referenceNumber: 'CLM-A-17',
      });
    });
  });

  describe('denials', () => {
    it.each<[string, JsonObject, number, string]>([
      ['filed 366 days after service', { daysSinceService: 366 }, 80, 'filed more than 365 days after service'],
      ['no coverage', {}, 0, 'no coverage'],
      ['empty diagnosis code', { diagnosisCode: '' }, 80, 'missing diagnosis code'],
      ['blank diagnosis code', { diagnosisCode: '   ' }, 80, 'missing diagnosis code'],
      ['undocumented claim over 1000', { hasDocumentation: false, amount: 1000.01 }, 80, 'documentation required for claims over 1000'],
      // Only the first reason that applies is given.
      ['late, uncovered, undiagnosed and undocumented', { daysSinceService: 500, diagnosisCode: '', hasDocumentation: false, amount: 5000 }, 0, 'filed more than 365 days after service'],
      ['uncovered, undiagnosed and undocumented', { diagnosisCode: '', hasDocumentation: false, amount: 5000 }, 0, 'no coverage'],
      ['undiagnosed and undocumented', { diagnosisCode: '', hasDocumentation: false, amount: 5000 }, 80, 'missing diagnosis code'],
    ])('%s', (_name, c, coverage, denialReason) => {
      expect(processClaim(claim(c), provider(), coverage)).toMatchObject({ approved: false, approvedAmount: 0, denialReason });
    });

    it.each<[string, JsonObject, number]>([
      // 500 × 80 / 100 = 400
      ['filed 365 days after service', { daysSinceService: 365 }, 400],
      // 1000 × 80 / 100 = 800
      ['undocumented claim of exactly 1000', { hasDocumentation: false, amount: 1000 }, 800],
      ['undocumented small claim', { hasDocumentation: false }, 400],
    ])('no denial: %s', (_name, c, approvedAmount) => {
      expect(processClaim(claim(c), provider(), 80)).toMatchObject({ approved: true, approvedAmount, denialReason: '' });
    });
  });

  describe('amount', () => {
    it.each<[string, JsonObject, JsonObject, number, number, boolean, string]>([
      ['full coverage', {}, {}, 100, 500, true, ''],
      // out of network: 80 − 20 = 60; 500 × 60 / 100 = 300
      ['out of network', {}, { inNetwork: false }, 80, 300, true, ''],
      // 21 − 20 = 1; 500 × 1 / 100 = 5
      ['out of network at 21%', {}, { inNetwork: false }, 21, 5, true, ''],
      ['out of network at 20% leaves nothing', {}, { inNetwork: false }, 20, 0, false, 'no coverage'],
      ['out of network at 15% does not go below 0', {}, { inNetwork: false }, 15, 0, false, 'no coverage'],
      // 100000 × 100 / 100 = 100000, capped
      ['capped at 50000', { amount: 100_000 }, {}, 100, 50_000, true, ''],
      // 62500 × 80 / 100 = 50000, exactly the cap
      ['exactly the cap', { amount: 62_500 }, {}, 80, 50_000, true, ''],
      // 62500.5 × 80 / 100 = 50000.4, capped
      ['just over the cap', { amount: 62_500.5 }, {}, 80, 50_000, true, ''],
      // 123.46 × 70 / 100 = 86.422 → 86.42
      ['rounded to cents', { amount: 123.46 }, {}, 70, 86.42, true, ''],
      // 99.99 × 33 / 100 = 32.9967 → 33
      ['rounded up to the next unit', { amount: 99.99 }, {}, 33, 33, true, ''],
      // 10.125 × 100 / 100 = 10.125 exactly; half away from zero → 10.13
      ['rounded half away from zero', { amount: 10.125 }, {}, 100, 10.13, true, ''],
      // Nothing to pay, yet nothing to deny either: the denial reason names only a zero rate.
      ['a zero amount', { amount: 0 }, {}, 80, 0, false, ''],
    ])('%s', (_name, c, p, coverage, approvedAmount, approved, denialReason) => {
      expect(processClaim(claim(c), provider(p), coverage)).toMatchObject({ approved, approvedAmount, denialReason });
    });
  });

  describe('patientCoverage', () => {
    it.each([0, 100])('accepts %i', (coverage) => {
      expect(processClaim(claim(), provider(), coverage)).toMatchObject({ referenceNumber: 'CLM-A-17' });
    });

    it.each([-1, 101, 1000])('rejects %i', (coverage) => {
      expectFailure(program, 'processClaim', [claim(), provider(), coverage], '`patientCoverage` must be between 0 and 100');
    });

    it('is checked before anything else', () => {
      expectFailure(program, 'processClaim', [claim({ daysSinceService: 999, diagnosisCode: '' }), provider(), 150], '`patientCoverage` must be between 0 and 100');
    });
  });
});

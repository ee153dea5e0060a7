import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('healthcare.eligibility', 'en-US');

function patient(overrides: JsonObject = {}): JsonObject {
  return { age: 40, insuranceType: 'STANDARD', chronicConditions: 0, hasReferral: false, ...overrides };
}

function service(overrides: JsonObject = {}): JsonObject {
  return { serviceCode: 'SVC-100', category: 'PRIMARY', requiresPreAuth: false, preAuthObtained: false, ...overrides };
}

const check = (p: JsonObject, s: JsonObject) => run(program, 'checkServiceEligibility', [p, s]) as JsonObject;

const EXPERIMENTAL = { service: 'EXPERIMENTAL', reason: 'experimental services are not covered' };
const notCovered = (category: string, plan: string) => ({ service: category, reason: `not covered by ${plan} plan` });
const noCoverage = (category: string) => ({ service: category, reason: 'no active coverage' });

describe('healthcare.eligibility.checkServiceEligibility', () => {
  it('returns the result fields in schema order', () => {
    const result = check(patient(), service());
    expect(Object.keys(result)).toEqual(['eligible', 'reason', 'eligibleServices', 'ineligibleServices']);
    expect(Object.keys((result.ineligibleServices as JsonObject[])[0]!)).toEqual(['service', 'reason']);
  });

  // The whole picture per plan, for an adult; categories keep their fixed order in both lists.
  it.each<[string, JsonObject, string[], JsonObject[]]>([
    ['NONE', { insuranceType: 'NONE' }, [], ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'].map(noCoverage).concat(EXPERIMENTAL)],
    ['NONE with a referral', { insuranceType: 'NONE', hasReferral: true }, [], ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'].map(noCoverage).concat(EXPERIMENTAL)],
    [
      'BASIC',
      { insuranceType: 'BASIC' },
      ['PREVENTIVE', 'PRIMARY'],
      [notCovered('SPECIALIST', 'BASIC'), notCovered('IMAGING', 'BASIC'), notCovered('SURGERY', 'BASIC'), EXPERIMENTAL],
    ],
    [
      'BASIC with a referral (the plan does not cover specialists at all)',
      { insuranceType: 'BASIC', hasReferral: true },
      ['PREVENTIVE', 'PRIMARY'],
      [notCovered('SPECIALIST', 'BASIC'), notCovered('IMAGING', 'BASIC'), notCovered('SURGERY', 'BASIC'), EXPERIMENTAL],
    ],
    [
      'STANDARD without a referral',
      { insuranceType: 'STANDARD' },
      ['PREVENTIVE', 'PRIMARY', 'IMAGING'],
      [{ service: 'SPECIALIST', reason: 'specialist visits need a referral' }, notCovered('SURGERY', 'STANDARD'), EXPERIMENTAL],
    ],
    ['STANDARD with a referral', { insuranceType: 'STANDARD', hasReferral: true }, ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING'], [notCovered('SURGERY', 'STANDARD'), EXPERIMENTAL]],
    ['PREMIUM without a referral', { insuranceType: 'PREMIUM' }, ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'], [EXPERIMENTAL]],
    ['PREMIUM with a referral', { insuranceType: 'PREMIUM', hasReferral: true }, ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'], [EXPERIMENTAL]],
    // Children get preventive care whatever the plan.
    ['NONE, age 17', { insuranceType: 'NONE', age: 17 }, ['PREVENTIVE'], ['PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'].map(noCoverage).concat(EXPERIMENTAL)],
    ['NONE, age 18', { insuranceType: 'NONE', age: 18 }, [], ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'].map(noCoverage).concat(EXPERIMENTAL)],
    [
      'BASIC, age 10',
      { insuranceType: 'BASIC', age: 10 },
      ['PREVENTIVE', 'PRIMARY'],
      [notCovered('SPECIALIST', 'BASIC'), notCovered('IMAGING', 'BASIC'), notCovered('SURGERY', 'BASIC'), EXPERIMENTAL],
    ],
    [
      'STANDARD, age 12, no referral (children still need one for specialists)',
      { insuranceType: 'STANDARD', age: 12 },
      ['PREVENTIVE', 'PRIMARY', 'IMAGING'],
      [{ service: 'SPECIALIST', reason: 'specialist visits need a referral' }, notCovered('SURGERY', 'STANDARD'), EXPERIMENTAL],
    ],
  ])('plan %s', (_name, p, eligibleServices, ineligibleServices) => {
    expect(check(patient(p), service({ category: 'PRIMARY' }))).toMatchObject({ eligibleServices, ineligibleServices });
  });

  it.each<[string, JsonObject, JsonObject, boolean, string]>([
    ['a covered service', { insuranceType: 'STANDARD' }, { category: 'IMAGING' }, true, 'covered by STANDARD plan'],
    ['a service outside the plan', { insuranceType: 'BASIC' }, { category: 'SURGERY' }, false, 'not covered by BASIC plan'],
    ['any service without coverage', { insuranceType: 'NONE' }, { category: 'PRIMARY' }, false, 'no active coverage'],
    ['preventive care for a child without coverage', { insuranceType: 'NONE', age: 17 }, { category: 'PREVENTIVE' }, true, 'covered by NONE plan'],
    ['a specialist without a referral', { insuranceType: 'STANDARD' }, { category: 'SPECIALIST' }, false, 'specialist visits need a referral'],
    ['a specialist with a referral', { insuranceType: 'STANDARD', hasReferral: true }, { category: 'SPECIALIST' }, true, 'covered by STANDARD plan'],
    ['a specialist on PREMIUM without a referral', { insuranceType: 'PREMIUM' }, { category: 'SPECIALIST' }, true, 'covered by PREMIUM plan'],
    ['experimental care, even on PREMIUM', { insuranceType: 'PREMIUM' }, { category: 'EXPERIMENTAL' }, false, 'experimental services are not covered'],
    ['pre-authorization required and missing', { insuranceType: 'PREMIUM' }, { category: 'SURGERY', requiresPreAuth: true }, false, 'pre-authorization required'],
    ['pre-authorization required and obtained', { insuranceType: 'PREMIUM' }, { category: 'SURGERY', requiresPreAuth: true, preAuthObtained: true }, true, 'covered by PREMIUM plan'],
    ['pre-authorization obtained though not required', { insuranceType: 'BASIC' }, { category: 'PRIMARY', preAuthObtained: true }, true, 'covered by BASIC plan'],
    [
      'an uncovered category wins over missing pre-authorization',
      { insuranceType: 'STANDARD' },
      { category: 'SURGERY', requiresPreAuth: true },
      false,
      'not covered by STANDARD plan',
    ],
  ])('the requested service: %s', (_name, p, s, eligible, reason) => {
    expect(check(patient(p), service(s))).toMatchObject({ eligible, reason });
  });

  it('answers with the complete result', () => {
    expect(check(patient({ insuranceType: 'BASIC', hasReferral: true }), service({ category: 'PREVENTIVE', requiresPreAuth: true }))).toEqual({
      eligible: false,
      reason: 'pre-authorization required',
      eligibleServices: ['PREVENTIVE', 'PRIMARY'],
      ineligibleServices: [notCovered('SPECIALIST', 'BASIC'), notCovered('IMAGING', 'BASIC'), notCovered('SURGERY', 'BASIC'), EXPERIMENTAL],
    });
  });

  it.each(['DENTAL', 'preventive', ''])('fails on the unknown category %j', (category) => {
    expectFailure(
      program,
      'checkServiceEligibility',
      [patient(), service({ category })],
      '`category` must be one of PREVENTIVE, PRIMARY, SPECIALIST, IMAGING, SURGERY, EXPERIMENTAL',
    );
  });

  it.each(['GOLD', 'basic', ''])('rejects insuranceType %j', (insuranceType) => {
    expectFailure(program, 'checkServiceEligibility', [patient({ insuranceType }), service()], '`insuranceType` must be one of NONE, BASIC, STANDARD, PREMIUM');
  });

  it('checks insuranceType before category', () => {
    expectFailure(program, 'checkServiceEligibility', [patient({ insuranceType: 'GOLD' }), service({ category: 'DENTAL' })], '`insuranceType` must be one of NONE, BASIC, STANDARD, PREMIUM');
  });
});

// A ~200-line module for the compile-time and memory measurements: a lending product family
// with shared records, helper rules, and one pricing rule per product (thresholds differ).

const PRODUCTS = [
  { name: 'Auto', minScore: 600, base: 450, maxTerm: 84, share: 0.4 },
  { name: 'Home', minScore: 620, base: 375, maxTerm: 360, share: 4.5 },
  { name: 'Personal', minScore: 580, base: 675, maxTerm: 60, share: 0.3 },
  { name: 'Student', minScore: 550, base: 500, maxTerm: 120, share: 0.6 },
  { name: 'Business', minScore: 640, base: 525, maxTerm: 120, share: 1.2 },
  { name: 'Boat', minScore: 660, base: 600, maxTerm: 180, share: 0.5 },
];

function productRule(p) {
  return `
# Pricing for ${p.name.toLowerCase()} loans.
Rule price${p.name} given applicant as Applicant, request as Request, produce Quote:
  If not eligible(applicant, ${p.minScore}):
    Return decline("not eligible").
  If request.termMonths is greater than ${p.maxTerm}:
    Return decline("term too long").
  Let dti be debtToIncome(applicant).
  If dti is greater than 0.45:
    Return decline("debt too high").
  Let rate be ${p.base} + bandAdjustment(applicant.creditScore).
  Match applicant.tier:
    When Prime:
      Let rate be rate - 25.
    When Standard:
      Let rate be rate + 0.
    When Subprime:
      Let rate be rate + 150.
  For each flag in applicant.flags:
    Match flag:
      When "veteran":
        Let rate be rate - 15.
      When "employee":
        Let rate be rate - 30.
  Let limit be round(applicant.annualIncome * ${p.share} * (1 - dti)).
  If request.amount is between 1 and limit:
    Return Quote with approved set to true, reason set to "ok", rateBps set to max(rate, 99), maxAmount set to limit.
  Return Quote with approved set to false, reason set to "amount too high", rateBps set to rate, maxAmount set to limit.
`;
}

/** The module text; `suffix` makes each copy a distinct module (the memory measurement keeps many). */
export function largeModuleSource(suffix = '') {
  const header = `# A family of lending products sharing records and helper rules.
Module bench.lending.family${suffix}.

Define Applicant has age as Int, creditScore as Int, annualIncome as Float, monthlyDebt as Float, tier as Tier, flags as List of Text.
Define Request has amount as Int, termMonths as Int, product as Product.
Define Quote has approved as Bool, reason as Text, rateBps as Int, maxAmount as Int.
Define Tier as one of Prime, Standard, Subprime.
Define Product as one of ${PRODUCTS.map((p) => p.name).join(', ')}.

Rule eligible given applicant as Applicant, minScore as Int, produce Bool:
  Return applicant.age is at least 18 and applicant.creditScore is at least minScore.

Rule debtToIncome given applicant as Applicant, produce Float:
  If applicant.annualIncome is at most 0:
    Return 1.0.
  Return applicant.monthlyDebt * 12 / applicant.annualIncome.

Rule bandAdjustment given score as Int, produce Int:
  If score is at least 760:
    Return -75.
  Otherwise if score is at least 700:
    Return 0.
  Otherwise if score is at least 640:
    Return 85.
  Return 200.

Rule decline given reason as Text, produce Quote:
  Return Quote with approved set to false, reason set to reason, rateBps set to 0, maxAmount set to 0.
`;
  const dispatch = `
Rule price given applicant as Applicant, request as Request, produce Quote:
  Match request.product:
${PRODUCTS.map((p) => `    When ${p.name}:\n      Return price${p.name}(applicant, request).`).join('\n')}
`;
  return header + PRODUCTS.map(productRule).join('') + dispatch;
}

export const LARGE_SAMPLE = {
  applicant: { age: 41, creditScore: 731, annualIncome: 99000, monthlyDebt: 1800, tier: 'Prime', flags: ['veteran'] },
  request: { amount: 25000, termMonths: 60, product: 'Auto' },
};

// The benchmark workload: one loan-pricing decision written four ways with the same logic:
// in the policy language, as a plain JS function, as json-rules-engine rules and as a GoRules
// ZEN decision graph (JDM). run.mjs checks that all four agree on every sample before timing.

export const POLICY_SOURCE = `# Loan pricing: eligibility, base rate by credit band, adjustments, affordability.
Module bench.loan.

Define Applicant has age as Int, creditScore as Int, annualIncome as Float, monthlyDebt as Float, tier as Tier, employed as Bool.
Define Tier as one of Prime, Standard, Subprime.
Define Quote has approved as Bool, reason as Text, rateBps as Int, maxAmount as Int.

Rule price given applicant as Applicant, amount as Int, termMonths as Int, produce Quote:
  If applicant.age is less than 18 or applicant.creditScore is less than 580:
    Return Quote with approved set to false, reason set to "not eligible", rateBps set to 0, maxAmount set to 0.
  Let dti be applicant.monthlyDebt * 12 / applicant.annualIncome.
  If dti is greater than 0.45:
    Return Quote with approved set to false, reason set to "debt too high", rateBps set to 0, maxAmount set to 0.
  Let rate be 675.
  If applicant.creditScore is at least 760:
    Let rate be 399.
  Otherwise if applicant.creditScore is at least 700:
    Let rate be 475.
  Otherwise if applicant.creditScore is at least 640:
    Let rate be 560.
  Match applicant.tier:
    When Prime:
      Let rate be rate minus 25.
    When Subprime:
      Let rate be rate plus 150.
  If termMonths is greater than 60:
    Let rate be rate plus 35.
  If not applicant.employed:
    Let rate be rate plus 100.
  If dti is greater than 0.35:
    Let rate be rate plus 50.
  Let maxAmount be round(applicant.annualIncome * 0.5 * (1 - dti)).
  If amount is greater than maxAmount:
    Return Quote with approved set to false, reason set to "amount too high", rateBps set to rate, maxAmount set to maxAmount.
  Return Quote with approved set to true, reason set to "ok", rateBps set to rate, maxAmount set to maxAmount.
`;

export const FUNCTION_NAME = 'price';

/** The same decision as hand-written JavaScript: the baseline. */
export function priceInJs({ applicant, amount, termMonths }) {
  if (applicant.age < 18 || applicant.creditScore < 580) {
    return { approved: false, reason: 'not eligible', rateBps: 0, maxAmount: 0 };
  }
  const dti = (applicant.monthlyDebt * 12) / applicant.annualIncome;
  if (dti > 0.45) return { approved: false, reason: 'debt too high', rateBps: 0, maxAmount: 0 };
  let rate = 675;
  if (applicant.creditScore >= 760) rate = 399;
  else if (applicant.creditScore >= 700) rate = 475;
  else if (applicant.creditScore >= 640) rate = 560;
  if (applicant.tier === 'Prime') rate -= 25;
  else if (applicant.tier === 'Subprime') rate += 150;
  if (termMonths > 60) rate += 35;
  if (!applicant.employed) rate += 100;
  if (dti > 0.35) rate += 50;
  const raw = applicant.annualIncome * 0.5 * (1 - dti);
  const maxAmount = Math.sign(raw) * Math.round(Math.abs(raw));
  if (amount > maxAmount) return { approved: false, reason: 'amount too high', rateBps: rate, maxAmount };
  return { approved: true, reason: 'ok', rateBps: rate, maxAmount };
}

/**
 * json-rules-engine has conditions and events, not arithmetic: the idiomatic encoding is one rule
 * per condition, computed facts for the ratios, and a small assembly of the fired events.
 */
export function jsonRulesEngineSetup(Engine) {
  const fact = (name, operator, value) => ({ fact: name, operator, value });
  const rules = [
    { conditions: { any: [fact('age', 'lessThan', 18), fact('creditScore', 'lessThan', 580)] }, event: { type: 'decline', params: { order: 1, reason: 'not eligible' } } },
    { conditions: { all: [fact('dti', 'greaterThan', 0.45)] }, event: { type: 'decline', params: { order: 2, reason: 'debt too high' } } },
    { conditions: { all: [fact('creditScore', 'greaterThanInclusive', 760)] }, event: { type: 'base', params: { bps: 399 } } },
    { conditions: { all: [fact('creditScore', 'greaterThanInclusive', 700), fact('creditScore', 'lessThan', 760)] }, event: { type: 'base', params: { bps: 475 } } },
    { conditions: { all: [fact('creditScore', 'greaterThanInclusive', 640), fact('creditScore', 'lessThan', 700)] }, event: { type: 'base', params: { bps: 560 } } },
    { conditions: { all: [fact('creditScore', 'lessThan', 640)] }, event: { type: 'base', params: { bps: 675 } } },
    { conditions: { all: [fact('tier', 'equal', 'Prime')] }, event: { type: 'adjust', params: { bps: -25 } } },
    { conditions: { all: [fact('tier', 'equal', 'Subprime')] }, event: { type: 'adjust', params: { bps: 150 } } },
    { conditions: { all: [fact('termMonths', 'greaterThan', 60)] }, event: { type: 'adjust', params: { bps: 35 } } },
    { conditions: { all: [fact('employed', 'equal', false)] }, event: { type: 'adjust', params: { bps: 100 } } },
    { conditions: { all: [fact('dti', 'greaterThan', 0.35)] }, event: { type: 'adjust', params: { bps: 50 } } },
    { conditions: { all: [{ fact: 'amount', operator: 'greaterThan', value: { fact: 'maxAmount' } }] }, event: { type: 'tooHigh' } },
  ];
  const engine = new Engine(rules, { allowUndefinedFacts: false });
  engine.addFact('dti', async (_params, almanac) => ((await almanac.factValue('monthlyDebt')) * 12) / (await almanac.factValue('annualIncome')));
  engine.addFact('maxAmount', async (_params, almanac) => {
    const raw = (await almanac.factValue('annualIncome')) * 0.5 * (1 - (await almanac.factValue('dti')));
    return Math.sign(raw) * Math.round(Math.abs(raw));
  });

  return async function priceWithRulesEngine({ applicant, amount, termMonths }) {
    const { events, almanac } = await engine.run({ ...applicant, amount, termMonths });
    const declines = events.filter((e) => e.type === 'decline').sort((a, b) => a.params.order - b.params.order);
    if (declines.length > 0) return { approved: false, reason: declines[0].params.reason, rateBps: 0, maxAmount: 0 };
    let rate = 0;
    for (const e of events) if (e.type === 'base' || e.type === 'adjust') rate += e.params.bps;
    const maxAmount = await almanac.factValue('maxAmount');
    if (events.some((e) => e.type === 'tooHigh')) return { approved: false, reason: 'amount too high', rateBps: rate, maxAmount };
    return { approved: true, reason: 'ok', rateBps: rate, maxAmount };
  };
}

/** The same decision as a ZEN JSON Decision Model: one expression node computing each value in turn. */
export const ZEN_DECISION = {
  nodes: [
    { id: 'request', type: 'inputNode', name: 'request', position: { x: 0, y: 0 } },
    {
      id: 'price',
      type: 'expressionNode',
      name: 'price',
      position: { x: 200, y: 0 },
      content: {
        expressions: [
          { id: 'e1', key: 'ineligible', value: 'applicant.age < 18 or applicant.creditScore < 580' },
          { id: 'e2', key: 'dti', value: 'applicant.monthlyDebt * 12 / applicant.annualIncome' },
          { id: 'e3', key: 'base', value: 'applicant.creditScore >= 760 ? 399 : applicant.creditScore >= 700 ? 475 : applicant.creditScore >= 640 ? 560 : 675' },
          {
            id: 'e4',
            key: 'rate',
            value:
              "$.base + (applicant.tier == 'Prime' ? -25 : applicant.tier == 'Subprime' ? 150 : 0) + (termMonths > 60 ? 35 : 0) + (applicant.employed ? 0 : 100) + ($.dti > 0.35 ? 50 : 0)",
          },
          { id: 'e5', key: 'max', value: 'round(applicant.annualIncome * 0.5 * (1 - $.dti))' },
          {
            id: 'e6',
            key: 'quote.reason',
            value: "$.ineligible ? 'not eligible' : $.dti > 0.45 ? 'debt too high' : amount > $.max ? 'amount too high' : 'ok'",
          },
          { id: 'e7', key: 'quote.approved', value: "$.quote.reason == 'ok'" },
          { id: 'e8', key: 'quote.rateBps', value: "$.ineligible or $.dti > 0.45 ? 0 : $.rate" },
          { id: 'e9', key: 'quote.maxAmount', value: "$.ineligible or $.dti > 0.45 ? 0 : $.max" },
        ],
      },
    },
    { id: 'response', type: 'outputNode', name: 'response', position: { x: 400, y: 0 } },
  ],
  edges: [
    { id: 'r1', sourceId: 'request', targetId: 'price', type: 'edge' },
    { id: 'r2', sourceId: 'price', targetId: 'response', type: 'edge' },
  ],
};

export function zenSetup(ZenEngine) {
  const decision = new ZenEngine().createDecision(ZEN_DECISION);
  return async function priceWithZen(input) {
    const { result } = await decision.evaluate(input);
    const q = result.quote;
    // The engine's numbers are decimals; the quote's are plain integers.
    return { approved: q.approved, reason: q.reason, rateBps: Number(q.rateBps), maxAmount: Number(q.maxAmount) };
  };
}

const applicant = (age, creditScore, annualIncome, monthlyDebt, tier, employed) => ({ age, creditScore, annualIncome, monthlyDebt, tier, employed });

/** Inputs reaching every outcome and every adjustment. */
export const SAMPLES = [
  { applicant: applicant(35, 780, 96000, 1500, 'Prime', true), amount: 20000, termMonths: 36 },
  { applicant: applicant(17, 800, 30000, 100, 'Standard', true), amount: 1000, termMonths: 12 },
  { applicant: applicant(44, 560, 50000, 800, 'Standard', true), amount: 5000, termMonths: 24 },
  { applicant: applicant(29, 720, 40000, 1700, 'Standard', true), amount: 5000, termMonths: 48 },
  { applicant: applicant(52, 705, 120000, 3900, 'Subprime', false), amount: 15000, termMonths: 72 },
  { applicant: applicant(23, 650, 38500, 400, 'Standard', true), amount: 90000, termMonths: 60 },
  { applicant: applicant(61, 600, 72000.5, 1250.25, 'Subprime', true), amount: 10000, termMonths: 84 },
  { applicant: applicant(40, 745, 88000, 2300, 'Prime', false), amount: 25000, termMonths: 61 },
  { applicant: applicant(33, 690, 54000, 0, 'Prime', true), amount: 27000, termMonths: 36 },
  { applicant: applicant(47, 770, 150000, 4000, 'Standard', true), amount: 40000, termMonths: 120 },
];

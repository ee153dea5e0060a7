/** Policies the evaluation suites send, and what they need. */

export const PRICING_SOURCE = `Module test.pricing.

Define Applicant has age as Int, score as Int.

Rule price given applicant as Applicant, amount as Int, produce Int:
  If applicant.age is less than 18:
    Fail with "applicant is a minor".
  If applicant.score is at least 700:
    Return amount times 2.
  Return amount times 3.

Rule remainder given a as Int, b as Int, produce Int:
  Return a modulo b.
`;

export const PRICING_MODULE = 'test.pricing';

export const priceContext = (age: number, score: number, amount: number) => ({ applicant: { age, score }, amount });

/** The same rule in German keywords. */
export const GERMAN_SOURCE = `Modul test.preis.

Regel doppelt gegeben x als Ganzzahl, liefert Ganzzahl:
  Liefere x mal 2.
`;

/** Missing `.` after the module header. */
export const BROKEN_SOURCE = `Module test.broken

Rule f produce Int:
  Return 1.
`;

/**
 * Three nested loops over the input: 10^9 iterations for a 1,000-element list. Only the wall-time
 * limit stops it when the step budget is raised.
 */
export const RUNAWAY_SOURCE = `Module test.runaway.

Rule spin given xs as List of Int, produce Int:
  Let total be 0.
  For each a in xs:
    For each b in xs:
      For each c in xs:
        Let total be total plus 1.
  Return total.
`;

export const runawayContext = () => ({ xs: Array.from({ length: 1000 }, (_, i) => i) });

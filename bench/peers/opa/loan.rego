# The loan-pricing rule of bench/language/loan-pricing.mjs in Rego, for OPA's REST server:
# POST /v1/data/bench/loan/price {"input": {"applicant": {...}, "amount": n, "termMonths": n}}.
package bench.loan

applicant := input.applicant

ineligible if applicant.age < 18

ineligible if applicant.creditScore < 580

dti := (applicant.monthlyDebt * 12) / applicant.annualIncome

base := 399 if {
	applicant.creditScore >= 760
} else := 475 if {
	applicant.creditScore >= 700
} else := 560 if {
	applicant.creditScore >= 640
} else := 675

tier_adjustment := -25 if {
	applicant.tier == "Prime"
} else := 150 if {
	applicant.tier == "Subprime"
} else := 0

term_adjustment := 35 if {
	input.termMonths > 60
} else := 0

employment_adjustment := 100 if {
	not applicant.employed
} else := 0

debt_adjustment := 50 if {
	dti > 0.35
} else := 0

rate := (((base + tier_adjustment) + term_adjustment) + employment_adjustment) + debt_adjustment

max_amount := round((applicant.annualIncome * 0.5) * (1 - dti))

price := {"approved": false, "reason": "not eligible", "rateBps": 0, "maxAmount": 0} if {
	ineligible
} else := {"approved": false, "reason": "debt too high", "rateBps": 0, "maxAmount": 0} if {
	dti > 0.45
} else := {"approved": false, "reason": "amount too high", "rateBps": rate, "maxAmount": max_amount} if {
	input.amount > max_amount
} else := {"approved": true, "reason": "ok", "rateBps": rate, "maxAmount": max_amount}

// Command evaluate calls the policy engine with a bearer token and with a signed request.
//
//	POLICY_URL=http://127.0.0.1:8080 POLICY_TENANT=acme \
//	POLICY_TOKEN="$(npm run -s token -- --tenant acme --role ADMIN)" \
//	POLICY_SECRET="$(npm run -s tenant -- show acme | tail -n 1)" \
//	go run ./examples/evaluate
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	policyclient "github.com/policy-engine/client-go"
)

const source = "Module acme.pricing.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n"

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	baseURL, tenant := os.Getenv("POLICY_URL"), os.Getenv("POLICY_TENANT")

	// Bearer token: REST endpoints (deploy, evaluate, audit); an active deploy needs ADMIN.
	bearer, err := policyclient.New(policyclient.Options{
		BaseURL: baseURL, TenantID: tenant, Role: policyclient.RoleAdmin,
		BearerToken: os.Getenv("POLICY_TOKEN"),
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := bearer.DeployPolicy(ctx, policyclient.DeployRequest{Source: source}); err != nil {
		log.Fatal(err)
	}
	deployed, err := bearer.EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{
		PolicyModule: "acme.pricing", PolicyFunction: "price", Context: map[string]any{"amount": 21},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("deployed %s: %s (receipt %s)\n", deployed.VersionID, deployed.Result, deployed.Receipt.ID)

	// Signed requests (HMAC with the tenant's secret): evaluation and GraphQL.
	signed, err := policyclient.New(policyclient.Options{
		BaseURL: baseURL, TenantID: tenant, Role: policyclient.RoleMember,
		Secret: os.Getenv("POLICY_SECRET"),
		Retry:  policyclient.RetryPolicy{MaxAttempts: 5},
	})
	if err != nil {
		log.Fatal(err)
	}
	answer, err := signed.EvaluateSource(ctx, policyclient.EvaluateSourceRequest{
		Source: source, FunctionName: "price", Context: map[string]any{"amount": 5},
	})
	var apiErr *policyclient.APIError
	switch {
	case errors.As(err, &apiErr):
		log.Fatalf("refused: %d %s: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	case err != nil:
		log.Fatal(err)
	case !answer.OK():
		log.Fatalf("evaluation failed: %s", *answer.Error)
	}
	var price int
	if err := answer.Decode(&price); err != nil {
		log.Fatal(err)
	}
	fmt.Println("source:", price)

	batch, err := signed.EvaluateBatch(ctx, []policyclient.BatchItem{
		policyclient.EvaluateSourceRequest{Source: source, FunctionName: "price", Context: []any{1}},
		policyclient.EvaluatePolicyRequest{PolicyModule: "acme.pricing", PolicyFunction: "price", Context: []any{2}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for i, r := range batch.Results {
		fmt.Printf("batch[%d]: ok=%v result=%s code=%s\n", i, r.OK(), r.Result, r.Code)
	}

	gql, err := signed.GraphQL(ctx,
		`query($a: LoanApplication!, $p: LoanApplicant!) { evaluateLoanEligibility(application: $a, applicant: $p) { eligible interestRate } }`,
		map[string]any{
			"a": map[string]any{"requestedAmount": 20000, "termMonths": 36, "purpose": "CAR"},
			"p": map[string]any{"age": 30, "annualIncome": 60000, "creditScore": 720, "monthlyDebt": 500, "yearsEmployed": 3},
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("graphql: %s errors=%v\n", gql.Data, gql.Errors)
}

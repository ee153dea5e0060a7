package policyclient_test

// Tests against the real service TestMain started: no mocks.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	policyclient "github.com/policy-engine/client-go"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newClient(t *testing.T, opts policyclient.Options) *policyclient.Client {
	t.Helper()
	if opts.BaseURL == "" {
		opts.BaseURL = svc.baseURL
	}
	if opts.TenantID == "" {
		opts.TenantID = svc.tenant
	}
	client, err := policyclient.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func signedClient(t *testing.T) *policyclient.Client {
	return newClient(t, policyclient.Options{Role: policyclient.RoleMember, Secret: svc.secret})
}

func bearerClient(t *testing.T) *policyclient.Client {
	return newClient(t, policyclient.Options{Role: policyclient.RoleAdmin, BearerToken: svc.token})
}

// asAPIError requires err to be an *APIError with this status and code.
func asAPIError(t *testing.T, err error, status int, code string) *policyclient.APIError {
	t.Helper()
	var apiErr *policyclient.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v (%T), want *APIError %d %s", err, err, status, code)
	}
	if apiErr.StatusCode != status || apiErr.Code != code {
		t.Fatalf("APIError %d %q (%s), want %d %s", apiErr.StatusCode, apiErr.Code, apiErr.Message, status, code)
	}
	if apiErr.Message == "" || apiErr.RequestID == "" {
		t.Errorf("APIError lacks message or request id: %+v", apiErr)
	}
	return apiErr
}

func TestEvaluateDeployedPolicy(t *testing.T) {
	ctx := testContext(t)
	for name, client := range map[string]*policyclient.Client{"bearer": bearerClient(t), "signed": signedClient(t)} {
		answer, err := client.EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{
			PolicyModule: pricingModule, PolicyFunction: "price", Context: map[string]any{"amount": 21},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var result int
		if err := answer.Decode(&result); err != nil || result != 42 {
			t.Fatalf("%s: result %d, %v (%s)", name, result, err, answer.Result)
		}
		if !answer.OK() || answer.Version != 1 || answer.VersionID != pricingModule+"@1" || answer.PolicyFunction != "price" || answer.Attempts != 1 {
			t.Errorf("%s: answer %+v", name, answer)
		}
		if answer.Receipt == nil || len(answer.Receipt.ContentHash) != 64 {
			t.Errorf("%s: receipt %+v", name, answer.Receipt)
		}
	}

	// A pinned version, a positional context and the trace.
	answer, err := bearerClient(t).EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{
		PolicyModule: pricingModule, PolicyFunction: "price", Version: policyclient.Version(1), Context: []any{5},
	}, policyclient.WithTrace())
	if err != nil {
		t.Fatal(err)
	}
	if string(answer.Result) != "10" || len(answer.Trace) == 0 {
		t.Errorf("result %s, trace %v", answer.Result, answer.Trace)
	}

	_, err = bearerClient(t).EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{PolicyModule: "acme.absent", PolicyFunction: "price"})
	asAPIError(t, err, http.StatusNotFound, "ERR_POLICY_NOT_FOUND")
}

func TestAuditRecordOfAReceipt(t *testing.T) {
	ctx := testContext(t)
	answer, err := signedClient(t).EvaluateSource(ctx, policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "price", Context: map[string]any{"amount": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if answer.Receipt == nil {
		t.Fatal("no receipt")
	}
	record, err := bearerClient(t).AuditRecord(ctx, answer.Receipt.ID)
	if err != nil {
		t.Fatal(err)
	}
	if record.ID != answer.Receipt.ID || record.ContentHash != answer.Receipt.ContentHash || record.EventType != "SOURCE_EVALUATED" ||
		record.ActorID != "signed:"+svc.tenant || record.PolicyModule == nil || *record.PolicyModule != pricingModule {
		t.Errorf("record %+v for receipt %+v", record, answer.Receipt)
	}
	_, err = bearerClient(t).AuditRecord(ctx, "00000000-0000-7000-8000-000000000000")
	asAPIError(t, err, http.StatusNotFound, "ERR_AUDIT_RECORD_NOT_FOUND")
}

func TestEvaluateSource(t *testing.T) {
	ctx := testContext(t)
	source := "Module acme.tax.\n\nRule gross given net as Int, produce Int:\n  Return net times 3.\n"
	answer, err := signedClient(t).EvaluateSource(ctx, policyclient.EvaluateSourceRequest{Source: source, FunctionName: "gross", Context: map[string]any{"net": 14}, Locale: "en-US"})
	if err != nil {
		t.Fatal(err)
	}
	var result int
	if err := answer.Decode(&result); err != nil || result != 42 || answer.StatusCode != 200 || answer.Receipt == nil {
		t.Fatalf("result %d, %v, %+v", result, err, answer)
	}

	// A failed evaluation is an answer (200), not an error.
	failed, err := bearerClient(t).EvaluateSource(ctx, policyclient.EvaluateSourceRequest{Source: source, FunctionName: "gros", Context: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if failed.OK() || failed.Code != "PL6002" || len(failed.Diagnostics) == 0 || failed.Diagnostics[0].Code != "PL6002" {
		t.Errorf("failed evaluation %+v", failed.Evaluation)
	}
	if err := failed.Decode(&result); !errors.Is(err, policyclient.ErrEvaluationFailed) {
		t.Errorf("Decode of a failed evaluation: %v", err)
	}
}

func TestEvaluateBatchOfSourceAndStoredItems(t *testing.T) {
	ctx := testContext(t)
	source := "Module acme.batch.\n\nRule triple given n as Int, produce Int:\n  Return n times 3.\n"
	answer, err := signedClient(t).EvaluateBatch(ctx, []policyclient.BatchItem{
		policyclient.EvaluateSourceRequest{Source: source, FunctionName: "triple", Context: map[string]any{"n": 4}},
		policyclient.EvaluatePolicyRequest{PolicyModule: pricingModule, PolicyFunction: "price", Context: map[string]any{"amount": 8}},
		policyclient.EvaluatePolicyRequest{PolicyModule: "acme.absent", PolicyFunction: "price", Context: map[string]any{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(answer.Results) != 3 {
		t.Fatalf("results %+v", answer.Results)
	}
	for i, want := range []string{"12", "16"} {
		r := answer.Results[i]
		if !r.OK() || string(r.Result) != want || r.Receipt() == nil {
			t.Errorf("item %d: %+v (result %s)", i, r, r.Result)
		}
	}
	if missing := answer.Results[2]; missing.OK() || missing.Code != "ERR_POLICY_NOT_FOUND" || missing.Receipt() != nil {
		t.Errorf("unknown module item: %+v", missing)
	}

	_, err = signedClient(t).EvaluateBatch(ctx, nil)
	asAPIError(t, err, http.StatusBadRequest, "ERR_EVALUATION_BATCH_SIZE_INVALID")
}

const loanQuery = `query($a: LoanApplication!, $p: LoanApplicant!) {
  loan: evaluateLoanEligibility(application: $a, applicant: $p) { eligible maxApprovedAmount interestRate conditions rejectionReasons }
}`

var loanVariables = map[string]any{
	"a": map[string]any{"requestedAmount": 20000, "termMonths": 36, "purpose": "CAR"},
	"p": map[string]any{"age": 30, "annualIncome": 60000, "creditScore": 720, "monthlyDebt": 500, "yearsEmployed": 3},
}

func TestGraphQLDecision(t *testing.T) {
	ctx := testContext(t)
	answer, err := signedClient(t).GraphQL(ctx, loanQuery, loanVariables)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Loan *struct {
			Eligible          bool    `json:"eligible"`
			MaxApprovedAmount int     `json:"maxApprovedAmount"`
			InterestRate      float64 `json:"interestRate"`
		} `json:"loan"`
	}
	if err := answer.Decode(&data); err != nil {
		t.Fatal(err)
	}
	if !answer.OK() || data.Loan == nil || !data.Loan.Eligible || data.Loan.MaxApprovedAmount != 20000 || data.Loan.InterestRate <= 0 {
		t.Fatalf("answer %s, errors %+v", answer.Data, answer.Errors)
	}
	if answer.Extensions == nil || answer.Extensions.AuditReceipts["loan"].AuditRecordID == "" {
		t.Errorf("no receipt for `loan`: %+v", answer.Extensions)
	}

	// A decision that fails in the engine is a 200 with errors; the other field still resolves.
	partial, err := signedClient(t).GraphQL(ctx, `query($d: AutoInsuranceDriver!, $v: AutoInsuranceVehicle!) {
  loan: evaluateLoanEligibility(application: {requestedAmount: 20000, termMonths: 36, purpose: "CAR"}, applicant: {age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3}) { eligible }
  quote: generateAutoQuote(driver: $d, vehicle: $v, coverageType: "GOLD") { annualPremium }
}`, map[string]any{
		"d": map[string]any{"age": 30, "yearsLicensed": 10, "accidents": 0, "violations": 0, "creditScore": 700},
		"v": map[string]any{"ageYears": 3, "value": 20000, "safetyRating": 5, "usage": "PERSONAL"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if partial.OK() || len(partial.Errors) != 1 || partial.Errors[0].Code() != "PL3004" || !bytes.Contains(partial.Data, []byte(`"quote":null`)) ||
		!bytes.Contains(partial.Data, []byte(`"eligible":true`)) {
		t.Errorf("partial answer %s, errors %+v", partial.Data, partial.Errors)
	}

	// Refusals of the GraphQL layer are APIErrors with the code of the first error.
	_, err = signedClient(t).GraphQL(ctx, "{ noSuchField }", nil)
	apiErr := asAPIError(t, err, http.StatusBadRequest, "ERR_GRAPHQL_VALIDATION_FAILED")
	if len(apiErr.GraphQLErrors) != 1 {
		t.Errorf("GraphQL errors %+v", apiErr.GraphQLErrors)
	}
	// GraphQL takes signed requests only.
	_, err = bearerClient(t).GraphQL(ctx, loanQuery, loanVariables)
	asAPIError(t, err, http.StatusForbidden, "ERR_AUTH_SIGNATURE_MISSING")
}

func TestSignedRequestsAndWrongSecret(t *testing.T) {
	ctx := testContext(t)
	// Signed only, no token: the signature is what authenticates.
	answer, err := signedClient(t).EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{PolicyModule: pricingModule, PolicyFunction: "price", Context: map[string]any{"amount": 50}})
	if err != nil || string(answer.Result) != "100" {
		t.Fatalf("signed evaluation: %v %+v", err, answer)
	}
	wrong := newClient(t, policyclient.Options{Role: policyclient.RoleMember, Secret: "not-the-secret-of-this-tenant"})
	_, err = wrong.EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{PolicyModule: pricingModule, PolicyFunction: "price", Context: map[string]any{"amount": 50}})
	asAPIError(t, err, http.StatusForbidden, "ERR_AUTH_SIGNATURE_INVALID")
	viewer := newClient(t, policyclient.Options{Role: policyclient.RoleViewer, Secret: svc.secret})
	_, err = viewer.EvaluatePolicy(ctx, policyclient.EvaluatePolicyRequest{PolicyModule: pricingModule, PolicyFunction: "price", Context: map[string]any{"amount": 50}})
	asAPIError(t, err, http.StatusForbidden, "ERR_AUTH_ROLE_INSUFFICIENT")
}

func TestNonceReplayIsRefused(t *testing.T) {
	ctx := testContext(t)
	// A raw request sent twice with the same nonce (and signature).
	body, _ := json.Marshal(policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "price", Context: map[string]any{"amount": 3}})
	headers, err := policyclient.SignedHeaders(policyclient.SigningInput{
		Method: "POST", PathWithQuery: policyclient.EvaluateSourcePath, Body: body,
		TenantID: svc.tenant, Role: "MEMBER", Secret: svc.secret, Timestamp: time.Now().Unix(), Nonce: policyclient.NewNonce(),
	})
	if err != nil {
		t.Fatal(err)
	}
	send := func() (int, map[string]any) {
		req, err := http.NewRequestWithContext(ctx, "POST", svc.baseURL+policyclient.EvaluateSourcePath, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for name, value := range headers {
			req.Header.Set(name, value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var envelope map[string]any
		_ = json.Unmarshal(data, &envelope)
		return resp.StatusCode, envelope
	}
	if status, envelope := send(); status != 200 || envelope["result"] != 6.0 {
		t.Fatalf("first use: %d %v", status, envelope)
	}
	if status, envelope := send(); status != 403 || envelope["code"] != "ERR_AUTH_NONCE_REUSED" {
		t.Fatalf("replay: %d %v", status, envelope)
	}

	// The same through the client (a fixed nonce in place of a fresh one): an APIError, not retried.
	nonce := policyclient.NewNonce()
	fixed := newClient(t, policyclient.Options{Role: policyclient.RoleMember, Secret: svc.secret, Nonce: func() string { return nonce }})
	request := policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "price", Context: map[string]any{"amount": 4}}
	if _, err := fixed.EvaluateSource(ctx, request); err != nil {
		t.Fatal(err)
	}
	_, err = fixed.EvaluateSource(ctx, request)
	apiErr := asAPIError(t, err, http.StatusForbidden, "ERR_AUTH_NONCE_REUSED")
	if apiErr.Attempts != 1 || apiErr.Fields["result"] == nil || string(apiErr.Fields["result"]) != "null" {
		t.Errorf("APIError %+v", apiErr)
	}
}

func TestInvalidInputIs400WithTheEnvelopeCode(t *testing.T) {
	ctx := testContext(t)
	_, err := bearerClient(t).EvaluateSource(ctx, policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "", Context: map[string]any{}})
	apiErr := asAPIError(t, err, http.StatusBadRequest, "ERR_EVALUATION_REQUEST_INVALID")
	if apiErr.Attempts != 1 || apiErr.ExecutionTimeMs != 0 {
		t.Errorf("APIError %+v", apiErr)
	}

	// A deploy that does not compile carries its diagnostics.
	_, err = bearerClient(t).DeployPolicy(ctx, policyclient.DeployRequest{Source: "Module acme.broken.\n\nRule f given x as Int, produce Int:\n  Retrun x.\n"})
	apiErr = asAPIError(t, err, http.StatusBadRequest, "ERR_POLICY_COMPILE")
	if len(apiErr.Diagnostics) == 0 || apiErr.Diagnostics[0].Span == nil {
		t.Errorf("diagnostics %+v", apiErr.Diagnostics)
	}

	// Raw bytes through Do: JSON that is not an object of the schema.
	_, err = signedClient(t).Do(ctx, "POST", policyclient.EvaluateSourcePath, []byte(`{"source": 5}`))
	asAPIError(t, err, http.StatusBadRequest, "ERR_EVALUATION_REQUEST_INVALID")
}

func TestDeployRefusedByItsTestsCarriesTheFailures(t *testing.T) {
	ctx := testContext(t)
	want := json.RawMessage(`5`)
	source := strings.Replace(pricingSource, "acme.pricing", "acme.gated", 1)
	_, err := bearerClient(t).DeployPolicy(ctx, policyclient.DeployRequest{
		Source: source,
		Tests: &policyclient.ModuleTests{Cases: []policyclient.TestCase{
			{Name: "doubles", Rule: "price", Context: map[string]any{"amount": 2}, Expect: &want},
		}},
	})
	apiErr := asAPIError(t, err, http.StatusUnprocessableEntity, "ERR_POLICY_TESTS_FAILED")
	var failures []struct {
		Name     string          `json:"name"`
		Expected json.RawMessage `json:"expected"`
		Actual   json.RawMessage `json:"actual"`
	}
	if err := json.Unmarshal(apiErr.Fields["failures"], &failures); err != nil {
		t.Fatalf("failures: %v", err)
	}
	if len(failures) != 1 || failures[0].Name != "doubles" || string(failures[0].Expected) != `{"result":5}` || string(failures[0].Actual) != `{"result":4}` {
		t.Errorf("failures %+v", failures)
	}

	want = json.RawMessage(`4`)
	deployed, err := bearerClient(t).DeployPolicy(ctx, policyclient.DeployRequest{
		Source: source,
		Tests:  &policyclient.ModuleTests{Cases: []policyclient.TestCase{{Name: "doubles", Rule: "price", Context: map[string]any{"amount": 2}, Expect: &want}}},
	})
	if err != nil || deployed.Version != 1 {
		t.Fatalf("deploy with passing tests: %v %+v", err, deployed)
	}
}

func TestCheckPolicyReportsWithoutStoring(t *testing.T) {
	ctx := testContext(t)
	source := strings.Replace(pricingSource, "acme.pricing", "acme.checked", 1)
	want := json.RawMessage(`5`)
	checked, err := signedClient(t).CheckPolicy(ctx, policyclient.CheckRequest{
		Source: source,
		Tests:  &policyclient.ModuleTests{Cases: []policyclient.TestCase{{Name: "doubles", Rule: "price", Context: map[string]any{"amount": 2}, Expect: &want}}},
		ShowIn: "de-DE",
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked.OK || checked.Locale != "en-US" || checked.Module == nil || *checked.Module != "acme.checked" || len(checked.Diagnostics) != 0 {
		t.Errorf("check %+v", checked)
	}
	if len(checked.Functions) != 1 || checked.Functions[0].Name != "price" || checked.Functions[0].Returns != "Int" || checked.Functions[0].Parameters[0] != (policyclient.Param{Name: "amount", Type: "Int"}) {
		t.Errorf("functions %+v", checked.Functions)
	}
	if checked.Tests == nil || checked.Tests.Failed != 1 || checked.Tests.Cases[0].Passed || string(checked.Tests.Cases[0].Actual) != `{"result":4}` {
		t.Errorf("tests %+v", checked.Tests)
	}
	if checked.Formatted == nil || checked.Formatted.Locale != "de-DE" || !strings.HasPrefix(checked.Formatted.Source, "Modul acme.checked.") {
		t.Errorf("formatted %+v", checked.Formatted)
	}

	// Errors are the answer: OK false, the diagnostic placed as `policy check` prints it.
	broken, err := signedClient(t).CheckPolicy(ctx, policyclient.CheckRequest{Source: "Module acme.broken.\n\nRule f given x as Int, produce Int:\n  Retrun x.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if broken.OK || broken.Module != nil || len(broken.Diagnostics) == 0 || broken.Diagnostics[0].Span == nil || broken.Diagnostics[0].Span.Start.Line != 4 {
		t.Errorf("broken check %+v", broken)
	}

	_, err = signedClient(t).CheckPolicy(ctx, policyclient.CheckRequest{Source: source, Locale: "fr-FR"})
	asAPIError(t, err, http.StatusBadRequest, "ERR_POLICY_REQUEST_INVALID")
	_, err = signedClient(t).Do(ctx, http.MethodGet, "/api/v1/policies/acme.checked/versions", nil)
	asAPIError(t, err, http.StatusNotFound, "ERR_POLICY_NOT_FOUND")
}

func TestBearerTokenOfAnotherTenantIs403(t *testing.T) {
	ctx := testContext(t)
	other := newClient(t, policyclient.Options{TenantID: "another-tenant-" + strconv.Itoa(int(time.Now().Unix())), BearerToken: svc.token})
	_, err := other.EvaluateSource(ctx, policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "price", Context: map[string]any{"amount": 1}})
	apiErr := asAPIError(t, err, http.StatusForbidden, "ERR_AUTH_TENANT_MISMATCH")
	if apiErr.Attempts != 1 {
		t.Errorf("a 403 was retried: %+v", apiErr)
	}
}

func TestListWorkflowsNewestFirstAndFiltered(t *testing.T) {
	ctx := testContext(t)
	module := "acme.listing"
	source := "Module " + module + ".\n\nWorkflow review given age as Int:\n  Step approval: Await \"go\".\n"
	if _, err := bearerClient(t).DeployPolicy(ctx, policyclient.DeployRequest{Source: source, Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	var started []string
	for i := 0; i < 2; i++ {
		resp, err := signedClient(t).Do(ctx, http.MethodPost, policyclient.WorkflowsPath, map[string]any{"policyModule": module, "workflow": "review", "context": map[string]any{"age": 30}})
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			WorkflowID string `json:"workflowId"`
		}
		if err := json.Unmarshal(resp.Body, &answer); err != nil || answer.WorkflowID == "" {
			t.Fatalf("start answered %s (%v)", resp.Body, err)
		}
		started = append(started, answer.WorkflowID)
	}

	page, err := bearerClient(t).ListWorkflows(ctx, policyclient.WorkflowListQuery{PolicyModule: module, Workflow: "review", Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	if page.StatusCode != http.StatusOK || page.TotalElements != 2 || page.TotalPages != 1 || page.Page != 0 || page.Size != 5 || len(page.Content) != 2 {
		t.Fatalf("page %+v", page)
	}
	first, second := page.Content[0], page.Content[1]
	// Newest start first; ties by id, descending.
	if first.StartedAt < second.StartedAt || (first.StartedAt == second.StartedAt && first.WorkflowID < second.WorkflowID) {
		t.Errorf("not newest first: %+v", page.Content)
	}
	for _, item := range page.Content {
		if item.PolicyModule != module || item.Workflow != "review" || item.Version != 1 || (item.Status != "RUNNING" && item.Status != "WAITING") ||
			item.FinalResult != nil || item.FinishedAt != nil || (item.WorkflowID != started[0] && item.WorkflowID != started[1]) {
			t.Errorf("item %+v", item)
		}
	}

	ended, err := bearerClient(t).ListWorkflows(ctx, policyclient.WorkflowListQuery{PolicyModule: module, Status: "COMPLETED"})
	if err != nil {
		t.Fatal(err)
	}
	if ended.TotalElements != 0 || len(ended.Content) != 0 {
		t.Errorf("completed: %+v", ended)
	}
	later, err := bearerClient(t).ListWorkflows(ctx, policyclient.WorkflowListQuery{PolicyModule: module, StartedAfter: "2999-01-01T00:00:00+01:00"})
	if err != nil {
		t.Fatal(err)
	}
	if later.TotalElements != 0 {
		t.Errorf("started after 2999: %+v", later)
	}

	_, err = bearerClient(t).ListWorkflows(ctx, policyclient.WorkflowListQuery{Status: "DONE"})
	asAPIError(t, err, http.StatusBadRequest, "ERR_REQUEST_QUERY_INVALID")
	_, err = bearerClient(t).ListWorkflows(ctx, policyclient.WorkflowListQuery{Size: 101})
	asAPIError(t, err, http.StatusBadRequest, "ERR_REQUEST_QUERY_INVALID")
}

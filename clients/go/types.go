package policyclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// Roles, in increasing order of rights.
const (
	RoleViewer = "VIEWER"
	RoleMember = "MEMBER"
	RoleAdmin  = "ADMIN"
	RoleOwner  = "OWNER"
)

// ResponseMeta is what every call reports besides its body.
type ResponseMeta struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int `json:"-"`
	// Attempts is 1 when the first attempt succeeded.
	Attempts int `json:"-"`
	// Header holds the answer's headers.
	Header http.Header `json:"-"`
}

// EvaluateSourceRequest is the body of POST /api/v1/policies/evaluate-source, and a batch item.
type EvaluateSourceRequest struct {
	Source       string `json:"source"`
	FunctionName string `json:"functionName"`
	// Context is an object keyed by parameter name (a map or struct) or an array in parameter
	// order (a slice). nil is sent as {}.
	Context any `json:"context"`
	// Locale of the source, e.g. "en-US" (the server's default when empty), "de-DE", "zh-CN".
	Locale string `json:"locale,omitempty"`
}

// EvaluatePolicyRequest names a deployed policy: the body of POST /api/v1/policies/evaluate,
// and a batch item.
type EvaluatePolicyRequest struct {
	PolicyModule   string `json:"policyModule"`
	PolicyFunction string `json:"policyFunction"`
	// Version of the module; nil for the active one, 0 for the built-in one.
	Version *int64 `json:"version,omitempty"`
	// Context as in EvaluateSourceRequest; nil is sent as {}.
	Context any `json:"context"`
}

// MarshalJSON sends a nil Context as {}.
func (r EvaluateSourceRequest) MarshalJSON() ([]byte, error) {
	type plain EvaluateSourceRequest
	if r.Context == nil {
		r.Context = struct{}{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON sends a nil Context as {}.
func (r EvaluatePolicyRequest) MarshalJSON() ([]byte, error) {
	type plain EvaluatePolicyRequest
	if r.Context == nil {
		r.Context = struct{}{}
	}
	return json.Marshal(plain(r))
}

// BatchItem is one item of a batch: an EvaluateSourceRequest or an EvaluatePolicyRequest.
type BatchItem interface {
	batchItem()
}

func (EvaluateSourceRequest) batchItem() {}
func (EvaluatePolicyRequest) batchItem() {}

// Version is a helper for EvaluatePolicyRequest.Version.
func Version(v int64) *int64 { return &v }

// Span is a source position.
type Span struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	Line      int `json:"line"`
	Column    int `json:"column"`
	EndLine   int `json:"endLine"`
	EndColumn int `json:"endColumn"`
}

// Diagnostic is one compiler or evaluation message.
type Diagnostic struct {
	// Code: PL1xxx syntax, PL2xxx types, PL3xxx runtime, PL4xxx limits, PL5xxx input, PL6xxx locale and entry.
	Code     string `json:"code"`
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`
	Span     *Span  `json:"span"`
	Help     string `json:"help,omitempty"`
}

// Evaluation is one evaluation as answered: `{result, error, executionTimeMs, code?, diagnostics,
// trace?}`. A non-nil Error is a failed evaluation (still HTTP 200), not a failed request.
type Evaluation struct {
	// Result is the rule's result as JSON ("null" when the evaluation failed); see Decode.
	Result json.RawMessage `json:"result"`
	// Error is "<code> <message> at <line>:<column>" of the first error, nil on success.
	Error           *string      `json:"error"`
	ExecutionTimeMs float64      `json:"executionTimeMs"`
	Code            string       `json:"code,omitempty"`
	Diagnostics     []Diagnostic `json:"diagnostics"`
	// Trace is the decision trace, with WithTrace().
	Trace []map[string]any `json:"trace,omitempty"`
}

// OK reports whether the evaluation succeeded.
func (e *Evaluation) OK() bool { return e.Error == nil }

// ErrEvaluationFailed is returned by Decode for a failed evaluation.
var ErrEvaluationFailed = errors.New("policyclient: the evaluation failed")

// Decode unmarshals Result into v; ErrEvaluationFailed (wrapped with the error) when it failed.
func (e *Evaluation) Decode(v any) error {
	if e.Error != nil {
		return errors.Join(ErrEvaluationFailed, errors.New(*e.Error))
	}
	return json.Unmarshal(e.Result, v)
}

// Receipt names an evaluation's audit record, stored before the answer left.
type Receipt struct {
	ID          string
	ContentHash string
}

// SourceEvaluation is the answer of EvaluateSource.
type SourceEvaluation struct {
	Evaluation
	ResponseMeta
	// Receipt from X-Audit-Record-Id / X-Audit-Content-Hash; nil when nothing was recorded.
	Receipt *Receipt `json:"-"`
}

// PolicyEvaluation is the answer of EvaluatePolicy: an evaluation plus the version that answered.
type PolicyEvaluation struct {
	Evaluation
	PolicyModule   string `json:"policyModule"`
	PolicyFunction string `json:"policyFunction"`
	Version        int64  `json:"version"`
	VersionID      string `json:"versionId"`
	ResponseMeta
	// Receipt from X-Audit-Record-Id / X-Audit-Content-Hash; nil when nothing was recorded.
	Receipt *Receipt `json:"-"`
}

// BatchResult is one item of a batch answer, with the receipt of its audit record (both fields
// nil for an item refused before it was evaluated).
type BatchResult struct {
	Evaluation
	AuditRecordID    *string `json:"auditRecordId"`
	AuditContentHash *string `json:"auditContentHash"`
}

// Receipt returns the item's receipt, nil when nothing was recorded for it.
func (r *BatchResult) Receipt() *Receipt {
	if r.AuditRecordID == nil || r.AuditContentHash == nil {
		return nil
	}
	return &Receipt{ID: *r.AuditRecordID, ContentHash: *r.AuditContentHash}
}

// BatchEvaluation is the answer of EvaluateBatch: one result per item, in input order.
type BatchEvaluation struct {
	Results []BatchResult `json:"results"`
	ResponseMeta
}

// GraphQLRequest is the body of POST /graphql.
type GraphQLRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables,omitempty"`
	OperationName string         `json:"operationName,omitempty"`
}

// GraphQLLocation is a position in the query text.
type GraphQLLocation struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// GraphQLError is one entry of a GraphQL answer's `errors`.
type GraphQLError struct {
	Message    string            `json:"message"`
	Path       []any             `json:"path,omitempty"`
	Locations  []GraphQLLocation `json:"locations,omitempty"`
	Extensions map[string]any    `json:"extensions,omitempty"`
}

// Code is `extensions.code`, "" when absent.
func (e GraphQLError) Code() string {
	code, _ := e.Extensions["code"].(string)
	return code
}

// AuditReceiptFields is a decision's receipt as a GraphQL answer names it.
type AuditReceiptFields struct {
	AuditRecordID    string `json:"auditRecordId"`
	AuditContentHash string `json:"auditContentHash"`
}

// GraphQLExtensions is a GraphQL answer's `extensions`.
type GraphQLExtensions struct {
	// AuditReceipts holds each evaluated decision's receipt under its response key.
	AuditReceipts map[string]AuditReceiptFields `json:"auditReceipts,omitempty"`
}

// GraphQLResponse is a GraphQL answer with status 200. Errors non-empty means at least a part
// failed (Data may still hold the fields that resolved).
type GraphQLResponse struct {
	Data       json.RawMessage    `json:"data"`
	Errors     []GraphQLError     `json:"errors,omitempty"`
	Extensions *GraphQLExtensions `json:"extensions,omitempty"`
	ResponseMeta
}

// OK reports whether the answer carries no errors.
func (r *GraphQLResponse) OK() bool { return len(r.Errors) == 0 }

// Decode unmarshals Data into v (whatever resolved, also when Errors is not empty).
func (r *GraphQLResponse) Decode(v any) error {
	if len(bytes.TrimSpace(r.Data)) == 0 {
		return json.Unmarshal([]byte("null"), v)
	}
	return json.Unmarshal(r.Data, v)
}

// DeployRequest is the body of POST /api/v1/policies.
type DeployRequest struct {
	Source string `json:"source"`
	// Locale of the source; the server's default (en-US) when empty.
	Locale string `json:"locale,omitempty"`
	// Tests, when set, must all pass before the version is stored (else a 422 ERR_POLICY_TESTS_FAILED
	// APIError whose Fields hold the `failures`).
	Tests *ModuleTests `json:"tests,omitempty"`
}

// ModuleTests is the content of a `<module>.tests.json` file, as `policy test` reads it.
type ModuleTests struct {
	Cases []TestCase `json:"cases"`
}

// TestCase is one case: a rule, its context and exactly one of Expect, ExpectFields, ExpectError.
// Expect is a pointer to a JSON value so that an expected null can be told from none.
type TestCase struct {
	Name         string           `json:"name"`
	Rule         string           `json:"rule"`
	Why          string           `json:"why,omitempty"`
	Context      any              `json:"context,omitempty"`
	Expect       *json.RawMessage `json:"expect,omitempty"`
	ExpectFields map[string]any   `json:"expectFields,omitempty"`
	ExpectError  string           `json:"expectError,omitempty"`
}

// FunctionSignature is one rule's signature.
type FunctionSignature struct {
	Name       string  `json:"name"`
	Params     []Param `json:"params"`
	ReturnType string  `json:"returnType"`
}

// Param is one parameter of a rule.
type Param struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Policy is one rule of one module version.
type Policy struct {
	ID             string `json:"id"`
	PolicyModule   string `json:"policyModule"`
	PolicyFunction string `json:"policyFunction"`
	Version        int64  `json:"version"`
	VersionID      string `json:"versionId"`
	Status         string `json:"status"`
	Builtin        bool   `json:"builtin"`
	Locale         string `json:"locale"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// DeployedVersion is the answer of DeployPolicy (201): the new module version.
type DeployedVersion struct {
	PolicyModule string              `json:"policyModule"`
	Version      int64               `json:"version"`
	VersionID    string              `json:"versionId"`
	Status       string              `json:"status"`
	Builtin      bool                `json:"builtin"`
	Locale       string              `json:"locale"`
	SourceHash   string              `json:"sourceHash"`
	RuleCount    int                 `json:"ruleCount"`
	ActorID      *string             `json:"actorId"`
	CreatedAt    string              `json:"createdAt"`
	UpdatedAt    string              `json:"updatedAt"`
	Functions    []FunctionSignature `json:"functions"`
	Policies     []Policy            `json:"policies"`
	Warnings     []Diagnostic        `json:"warnings"`
	ResponseMeta
}

// CheckRequest is the body of POST /api/v1/policies/check.
type CheckRequest struct {
	Source string `json:"source"`
	// Locale of the source: en-US, de-DE or zh-CN; when empty, the one its module header names (else en-US).
	Locale string `json:"locale,omitempty"`
	// Tests, when set, are run and each reported passed or failed in PolicyCheck.Tests.
	Tests *ModuleTests `json:"tests,omitempty"`
	// ShowIn, when set, asks for the module printed in that locale (PolicyCheck.Formatted).
	ShowIn string `json:"showIn,omitempty"`
}

// CheckPosition is a place in a checked source: Line and Column from 1, as `policy check` prints
// them; Offset is the UTF-16 index into the source.
type CheckPosition struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Offset int `json:"offset"`
}

// CheckSpan runs from Start to just past the last character, End.
type CheckSpan struct {
	Start CheckPosition `json:"start"`
	End   CheckPosition `json:"end"`
}

// CheckDiagnostic is one message of a check; Span is nil only for a problem with no place in the source.
type CheckDiagnostic struct {
	Code     string     `json:"code"`
	Severity string     `json:"severity"` // "error" or "warning"
	Message  string     `json:"message"`
	Help     string     `json:"help,omitempty"`
	Span     *CheckSpan `json:"span"`
}

// CheckedRule is one rule of a checked module; parameter types are written in en-US.
type CheckedRule struct {
	Name       string  `json:"name"`
	Parameters []Param `json:"parameters"`
	Returns    string  `json:"returns"`
}

// CheckedWorkflow is one workflow of a checked module.
type CheckedWorkflow struct {
	Name       string  `json:"name"`
	Parameters []Param `json:"parameters"`
}

// CheckedCase is one test case of a check: passed, or failed with Reason, as a refused deploy lists it.
type CheckedCase struct {
	Name     string          `json:"name"`
	Rule     string          `json:"rule"`
	Passed   bool            `json:"passed"`
	Expected json.RawMessage `json:"expected"`
	Actual   json.RawMessage `json:"actual"`
	Reason   string          `json:"reason,omitempty"`
}

// PolicyCheck is the answer of CheckPolicy (200), as `policy check --json` prints it.
type PolicyCheck struct {
	// OK: no error diagnostic, and every case passed when tests were given.
	OK          bool              `json:"ok"`
	Locale      string            `json:"locale"`
	Module      *string           `json:"module"` // nil when the module did not compile
	Functions   []CheckedRule     `json:"functions"`
	Workflows   []CheckedWorkflow `json:"workflows"`
	Diagnostics []CheckDiagnostic `json:"diagnostics"`
	// Tests is present when tests were given and the module compiled.
	Tests *struct {
		Passed int           `json:"passed"`
		Failed int           `json:"failed"`
		Cases  []CheckedCase `json:"cases"`
	} `json:"tests,omitempty"`
	// Formatted is present when ShowIn was given and the module compiled.
	Formatted *struct {
		Locale string `json:"locale"`
		Source string `json:"source"`
	} `json:"formatted,omitempty"`
	ResponseMeta
}

// AuditRecord is one record as GET /api/v1/audit/records/{id} answers it; Seq, Hash and
// PreviousHash are nil until it is linked into the tenant's chain.
type AuditRecord struct {
	ID             string         `json:"id"`
	Seq            *int64         `json:"seq"`
	EventType      string         `json:"eventType"`
	PolicyModule   *string        `json:"policyModule"`
	PolicyFunction *string        `json:"policyFunction"`
	ActorID        string         `json:"actorId"`
	OccurredAt     string         `json:"occurredAt"`
	Payload        map[string]any `json:"payload"`
	Hash           *string        `json:"hash"`
	PreviousHash   *string        `json:"previousHash"`
	Linked         bool           `json:"linked"`
	// ContentHash is the service's hash of the content as read: a receipt's ContentHash.
	ContentHash string `json:"contentHash"`
	ResponseMeta
}

// WorkflowListQuery narrows ListWorkflows; zero values are left out (the service's defaults: every
// workflow, page 0, 20 a page).
type WorkflowListQuery struct {
	// Status is RUNNING, WAITING, COMPLETED, FAILED or CANCELLED.
	Status       string
	PolicyModule string
	// Workflow is the workflow's declared name.
	Workflow string
	// StartedAfter and StartedBefore are ISO 8601 date-times with a zone: started at or after the
	// first, before the second.
	StartedAfter  string
	StartedBefore string
	// Page is zero-based; Size at most 100.
	Page int
	Size int
}

func (q WorkflowListQuery) encode() string {
	values := url.Values{}
	for name, value := range map[string]string{"status": q.Status, "policyModule": q.PolicyModule, "workflow": q.Workflow, "startedAfter": q.StartedAfter, "startedBefore": q.StartedBefore} {
		if value != "" {
			values.Set(name, value)
		}
	}
	if q.Page != 0 {
		values.Set("page", strconv.Itoa(q.Page))
	}
	if q.Size != 0 {
		values.Set("size", strconv.Itoa(q.Size))
	}
	if len(values) == 0 {
		return ""
	}
	return "?" + values.Encode()
}

// WorkflowSummary is a workflow as the list shows it: no context, no steps.
type WorkflowSummary struct {
	WorkflowID   string `json:"workflowId"`
	PolicyModule string `json:"policyModule"`
	Workflow     string `json:"workflow"`
	Version      int    `json:"version"`
	Status       string `json:"status"`
	// FinalResult is set once COMPLETED: true when every step passed, false when a step or a signal said no.
	FinalResult *bool   `json:"finalResult"`
	CurrentStep *string `json:"currentStep"`
	StartedAt   string  `json:"startedAt"`
	// FinishedAt is nil while the workflow runs or waits.
	FinishedAt *string `json:"finishedAt"`
}

// WorkflowPage is one page of ListWorkflows, in the interface's page envelope.
type WorkflowPage struct {
	Content       []WorkflowSummary `json:"content"`
	TotalElements int               `json:"totalElements"`
	TotalPages    int               `json:"totalPages"`
	Page          int               `json:"page"`
	Size          int               `json:"size"`
	ResponseMeta
}

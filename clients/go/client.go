// Package policyclient is a client for the policy engine service: evaluation of deployed policies
// and of policy source, batches, GraphQL decisions and audit records, authenticated with a bearer
// token or with HMAC request signing, and retried by the interface's client rules.
package policyclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// API paths.
const (
	EvaluatePolicyPath      = "/api/v1/policies/evaluate"
	EvaluateSourcePath      = "/api/v1/policies/evaluate-source"
	EvaluateSourceBatchPath = "/api/v1/policies/evaluate-source/batch"
	DeployPolicyPath        = "/api/v1/policies"
	CheckPolicyPath         = "/api/v1/policies/check"
	GraphQLPath             = "/graphql"
	AuditRecordPath         = "/api/v1/audit/records/"
	WorkflowsPath           = "/api/v1/workflows"
)

// DefaultAttemptTimeout bounds each attempt of a client made without an HTTPClient, as the
// TypeScript client's 30 s per attempt.
const DefaultAttemptTimeout = 30 * time.Second

// Options configure a Client. BaseURL and TenantID are required, and Secret or BearerToken (or both).
type Options struct {
	// BaseURL is the service address, e.g. "http://127.0.0.1:8080"; paths are appended to it.
	BaseURL string
	// TenantID is sent as X-Tenant-Id.
	TenantID string
	// Role is sent as X-User-Role (covered by the signature). With a bearer token and no secret it
	// may be left empty; when sent it must not exceed the token's role.
	Role string
	// Secret is the tenant's signing secret: every attempt is signed with a fresh timestamp and nonce.
	Secret string
	// BearerToken is sent as "Authorization: Bearer …".
	BearerToken string
	// HTTPClient sends the requests; when nil, a client whose Timeout (per attempt) is
	// DefaultAttemptTimeout. Its Timeout bounds each attempt; ctx bounds the whole call.
	HTTPClient *http.Client
	// Retry is the retry policy; zero fields take DefaultRetryPolicy's values.
	Retry RetryPolicy
	// UserAgent is sent as User-Agent when set.
	UserAgent string

	// Hooks, for tests. Sleep waits between attempts (honouring ctx); Random is the jitter source
	// in [0, 1); Now gives timestamps and the base of Retry-After dates; Nonce makes each attempt's nonce.
	Sleep  func(ctx context.Context, d time.Duration) error
	Random func() float64
	Now    func() time.Time
	Nonce  func() string
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	base        *url.URL
	tenantID    string
	role        string
	secret      string
	bearerToken string
	httpClient  *http.Client
	retry       RetryPolicy
	userAgent   string
	sleep       func(ctx context.Context, d time.Duration) error
	random      func() float64
	now         func() time.Time
	nonce       func() string
}

// New checks the options and returns a client.
func New(opts Options) (*Client, error) {
	base, err := url.Parse(strings.TrimRight(opts.BaseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("policyclient: BaseURL: %w", err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("policyclient: BaseURL must be an http(s) address, got %q", opts.BaseURL)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("policyclient: BaseURL must have no query or fragment, got %q", opts.BaseURL)
	}
	if !tenantIDPattern.MatchString(opts.TenantID) {
		return nil, fmt.Errorf("policyclient: TenantID must be 1 to 64 characters of A-Z, a-z, 0-9, '_' or '-', got %q", opts.TenantID)
	}
	if opts.Secret == "" && opts.BearerToken == "" {
		return nil, errors.New("policyclient: Secret or BearerToken is required")
	}
	if opts.Secret != "" && opts.Role == "" {
		return nil, errors.New("policyclient: a signed request needs a Role")
	}
	if strings.ContainsAny(opts.Role, "\r\n") || strings.ContainsAny(opts.BearerToken, "\r\n") {
		return nil, errors.New("policyclient: Role and BearerToken must not contain line breaks")
	}
	c := &Client{
		base:        base,
		tenantID:    opts.TenantID,
		role:        opts.Role,
		secret:      opts.Secret,
		bearerToken: opts.BearerToken,
		httpClient:  opts.HTTPClient,
		retry:       opts.Retry.withDefaults(),
		userAgent:   opts.UserAgent,
		sleep:       opts.Sleep,
		random:      opts.Random,
		now:         opts.Now,
		nonce:       opts.Nonce,
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Timeout: DefaultAttemptTimeout}
	}
	if c.sleep == nil {
		c.sleep = sleepContext
	}
	if c.random == nil {
		c.random = rand.Float64
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.nonce == nil {
		c.nonce = NewNonce
	}
	return c, nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	trace   bool
	headers http.Header
}

// WithTrace asks for the decision trace (?trace=true) of an evaluation.
func WithTrace() CallOption { return func(o *callOptions) { o.trace = true } }

// WithHeader adds a header to every attempt of the call (e.g. X-Request-Id). Signed headers
// cannot be overridden.
func WithHeader(name, value string) CallOption {
	return func(o *callOptions) {
		if o.headers == nil {
			o.headers = http.Header{}
		}
		o.headers.Add(name, value)
	}
}

func collect(opts []CallOption) callOptions {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Response is a 2xx answer of Do.
type Response struct {
	ResponseMeta
	Body []byte
}

// Do sends a request to any endpoint: body nil (no body), []byte or json.RawMessage (sent as
// is) or any other value (sent as JSON). path starts with "/" and may carry a query. Every attempt
// is signed anew; non-2xx answers left after the retry rules are an *APIError, a request without
// answer a *NetworkError.
func (c *Client) Do(ctx context.Context, method, path string, body any, opts ...CallOption) (*Response, error) {
	return c.do(ctx, method, path, body, collect(opts))
}

func (c *Client) do(ctx context.Context, method, path string, body any, o callOptions) (*Response, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("policyclient: path must start with '/', got %q", path)
	}
	method = strings.ToUpper(method)
	target, err := url.Parse(c.base.String() + path)
	if err != nil {
		return nil, fmt.Errorf("policyclient: path %q: %w", path, err)
	}
	// The request target net/http writes on the wire, so the server hashes what was signed.
	pathWithQuery := target.RequestURI()
	payload, err := encodeBody(body)
	if err != nil {
		return nil, err
	}

	for attempt := 1; ; attempt++ {
		req, err := c.newRequest(ctx, method, target, pathWithQuery, payload, o)
		if err != nil {
			return nil, err
		}
		resp, err := c.httpClient.Do(req)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, &NetworkError{Method: method, Path: pathWithQuery, Err: err}
		}
		data, readErr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if readErr != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, &NetworkError{Method: method, Path: pathWithQuery, Err: readErr}
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return &Response{ResponseMeta: ResponseMeta{StatusCode: resp.StatusCode, Attempts: attempt, Header: resp.Header}, Body: data}, nil
		}
		now := c.now()
		if wait, retry := decideRetry(resp.StatusCode, resp.Header.Get("Retry-After"), attempt-1, c.retry, c.random, now); retry {
			if err := c.sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}
		return nil, newAPIError(method, pathWithQuery, resp, data, attempt, now)
	}
}

func (c *Client) newRequest(ctx context.Context, method string, target *url.URL, pathWithQuery string, payload []byte, o callOptions) (*http.Request, error) {
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target.String(), reader)
	if err != nil {
		return nil, fmt.Errorf("policyclient: %w", err)
	}
	for name, values := range o.headers {
		for _, value := range values {
			req.Header.Add(name, value)
		}
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.bearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearerToken)
	}
	if c.secret == "" {
		req.Header.Set(HeaderTenantID, c.tenantID)
		if c.role != "" {
			req.Header.Set(HeaderUserRole, c.role)
		}
		return req, nil
	}
	signed, err := SignedHeaders(SigningInput{
		Method:        method,
		PathWithQuery: pathWithQuery,
		Body:          payload,
		TenantID:      c.tenantID,
		Role:          c.role,
		Secret:        c.secret,
		Timestamp:     c.now().Unix(),
		Nonce:         c.nonce(),
	})
	if err != nil {
		return nil, err
	}
	for name, value := range signed {
		req.Header.Set(name, value)
	}
	return req, nil
}

// encodeBody serialises once: the bytes that are hashed are the bytes sent, on every attempt.
func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case []byte:
		return b, nil
	case json.RawMessage:
		return b, nil
	case string:
		return []byte(b), nil
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("policyclient: encoding the request body: %w", err)
	}
	return data, nil
}

// doJSON sends the request and decodes a 2xx JSON answer into out.
func (c *Client) doJSON(ctx context.Context, method, path string, body any, o callOptions, out any) (*Response, error) {
	resp, err := c.do(ctx, method, path, body, o)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return nil, &ProtocolError{StatusCode: resp.StatusCode, Message: "the answer is not the JSON expected: " + err.Error(), Body: resp.Body}
	}
	return resp, nil
}

func withTrace(path string, o callOptions) string {
	if o.trace {
		return path + "?trace=true"
	}
	return path
}

func receiptFromHeader(h http.Header) *Receipt {
	id, hash := h.Get("X-Audit-Record-Id"), h.Get("X-Audit-Content-Hash")
	if id == "" || hash == "" {
		return nil
	}
	return &Receipt{ID: id, ContentHash: hash}
}

func checkEvaluation(resp *Response, e *Evaluation) error {
	if e.Error == nil && len(e.Result) == 0 {
		return &ProtocolError{StatusCode: resp.StatusCode, Message: "evaluation answer has neither result nor error", Body: resp.Body}
	}
	return nil
}

// EvaluateSource evaluates one rule of policy source text (POST /api/v1/policies/evaluate-source).
// A failed evaluation is a result with a non-nil Error, not an error.
func (c *Client) EvaluateSource(ctx context.Context, req EvaluateSourceRequest, opts ...CallOption) (*SourceEvaluation, error) {
	o := collect(opts)
	var out SourceEvaluation
	resp, err := c.doJSON(ctx, http.MethodPost, withTrace(EvaluateSourcePath, o), req, o, &out)
	if err != nil {
		return nil, err
	}
	if err := checkEvaluation(resp, &out.Evaluation); err != nil {
		return nil, err
	}
	out.ResponseMeta = resp.ResponseMeta
	out.Receipt = receiptFromHeader(resp.Header)
	return &out, nil
}

// EvaluatePolicy evaluates a deployed (or built-in) policy by name (POST /api/v1/policies/evaluate).
// A failed evaluation is a result with a non-nil Error; an unknown module, rule or version is an
// *APIError (404).
func (c *Client) EvaluatePolicy(ctx context.Context, req EvaluatePolicyRequest, opts ...CallOption) (*PolicyEvaluation, error) {
	o := collect(opts)
	var out PolicyEvaluation
	resp, err := c.doJSON(ctx, http.MethodPost, withTrace(EvaluatePolicyPath, o), req, o, &out)
	if err != nil {
		return nil, err
	}
	if err := checkEvaluation(resp, &out.Evaluation); err != nil {
		return nil, err
	}
	out.ResponseMeta = resp.ResponseMeta
	out.Receipt = receiptFromHeader(resp.Header)
	return &out, nil
}

// EvaluateBatch evaluates many items in one request (POST /api/v1/policies/evaluate-source/batch):
// source items (EvaluateSourceRequest) and deployed policies (EvaluatePolicyRequest). Each result
// succeeds or fails on its own, in input order.
func (c *Client) EvaluateBatch(ctx context.Context, items []BatchItem, opts ...CallOption) (*BatchEvaluation, error) {
	o := collect(opts)
	if items == nil {
		items = []BatchItem{}
	}
	body := struct {
		Items []BatchItem `json:"items"`
	}{items}
	var out BatchEvaluation
	resp, err := c.doJSON(ctx, http.MethodPost, withTrace(EvaluateSourceBatchPath, o), body, o, &out)
	if err != nil {
		return nil, err
	}
	if len(out.Results) != len(items) {
		return nil, &ProtocolError{StatusCode: resp.StatusCode, Message: fmt.Sprintf("batch answer has %d results for %d items", len(out.Results), len(items)), Body: resp.Body}
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

// GraphQL sends a query with its variables (POST /graphql). A 200 answer is returned as it is,
// errors included (check OK or Errors); a refused request (4xx/5xx) is an *APIError.
func (c *Client) GraphQL(ctx context.Context, query string, variables map[string]any, opts ...CallOption) (*GraphQLResponse, error) {
	return c.GraphQLRequest(ctx, GraphQLRequest{Query: query, Variables: variables}, opts...)
}

// GraphQLRequest is GraphQL with an operation name.
func (c *Client) GraphQLRequest(ctx context.Context, req GraphQLRequest, opts ...CallOption) (*GraphQLResponse, error) {
	o := collect(opts)
	var out GraphQLResponse
	resp, err := c.doJSON(ctx, http.MethodPost, GraphQLPath, req, o, &out)
	if err != nil {
		return nil, err
	}
	if len(out.Errors) == 0 && (len(out.Data) == 0 || bytes.Equal(bytes.TrimSpace(out.Data), []byte("null"))) {
		return nil, &ProtocolError{StatusCode: resp.StatusCode, Message: "GraphQL answer has neither data nor errors", Body: resp.Body}
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

// DeployPolicy deploys a module source as the module's next version, which becomes active
// (POST /api/v1/policies, role ADMIN). A source that does not compile is an *APIError
// ERR_POLICY_COMPILE with Diagnostics.
func (c *Client) DeployPolicy(ctx context.Context, req DeployRequest, opts ...CallOption) (*DeployedVersion, error) {
	var out DeployedVersion
	resp, err := c.doJSON(ctx, http.MethodPost, DeployPolicyPath, req, collect(opts), &out)
	if err != nil {
		return nil, err
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

// CheckPolicy compiles a module source as a deploy would, runs req.Tests and prints it in
// req.ShowIn, storing nothing (POST /api/v1/policies/check, role MEMBER). A source with errors is
// an answer (OK false, its Diagnostics), not an error; a malformed request is an *APIError 400
// ERR_POLICY_REQUEST_INVALID.
func (c *Client) CheckPolicy(ctx context.Context, req CheckRequest, opts ...CallOption) (*PolicyCheck, error) {
	var out PolicyCheck
	resp, err := c.doJSON(ctx, http.MethodPost, CheckPolicyPath, req, collect(opts), &out)
	if err != nil {
		return nil, err
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

// AuditRecord reads one audit record by the id a receipt names (GET /api/v1/audit/records/{id};
// role ADMIN, which takes a bearer token). An id the tenant does not have is an *APIError
// 404 ERR_AUDIT_RECORD_NOT_FOUND.
func (c *Client) AuditRecord(ctx context.Context, id string, opts ...CallOption) (*AuditRecord, error) {
	var out AuditRecord
	resp, err := c.doJSON(ctx, http.MethodGet, AuditRecordPath+url.PathEscape(id), nil, collect(opts), &out)
	if err != nil {
		return nil, err
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

// ListWorkflows reads a page of the tenant's workflows, newest start first, narrowed by the query's
// filters (GET /api/v1/workflows; role MEMBER, which takes a bearer token). A bad filter (an unknown
// status, a malformed time, a page or size out of range) is an *APIError 400 ERR_REQUEST_QUERY_INVALID.
func (c *Client) ListWorkflows(ctx context.Context, query WorkflowListQuery, opts ...CallOption) (*WorkflowPage, error) {
	var out WorkflowPage
	resp, err := c.doJSON(ctx, http.MethodGet, WorkflowsPath+query.encode(), nil, collect(opts), &out)
	if err != nil {
		return nil, err
	}
	if out.Content == nil {
		return nil, &ProtocolError{StatusCode: resp.StatusCode, Message: "workflow page has no content", Body: resp.Body}
	}
	out.ResponseMeta = resp.ResponseMeta
	return &out, nil
}

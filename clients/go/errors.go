package policyclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// APIError is a non-2xx answer, returned once the retry rules allow no further attempt. Use
// errors.As(err, &apiErr) to read it.
//
// The service answers errors with its envelope
//
//	{"result": null, "error": "<message>", "executionTimeMs": 0, "code": "ERR_…"}
//
// (plus `diagnostics` for ERR_POLICY_COMPILE); the GraphQL layer refuses with `{"errors": [...]}`,
// whose first error's message and `extensions.code` fill Message and Code.
type APIError struct {
	Method string
	// Path is the path (and query) the request was sent to.
	Path string
	// StatusCode is the HTTP status of the last attempt.
	StatusCode int
	// Code is the envelope's stable `code` (or the first GraphQL error's `extensions.code`); "" if none.
	Code string
	// Message is the envelope's `error` (or the first GraphQL error's message), else the status text.
	Message string
	// ExecutionTimeMs is the envelope's `executionTimeMs` (0 for errors before any evaluation).
	ExecutionTimeMs float64
	// Diagnostics of a deploy that did not compile (ERR_POLICY_COMPILE).
	Diagnostics []Diagnostic
	// GraphQLErrors is the body's `errors` array, when it has one.
	GraphQLErrors []GraphQLError
	// Fields holds every top-level field of a JSON body, including any not named above.
	Fields map[string]json.RawMessage
	// Body is the raw response body.
	Body []byte
	// RetryAfter is Retry-After on a 429 that was not (or no longer) retried; 0 otherwise.
	RetryAfter time.Duration
	// RequestID is the answer's X-Request-Id, which the service's log lines carry as reqId.
	RequestID string
	// Header holds the response headers of the last attempt.
	Header http.Header
	// Attempts is how many attempts were made, 1 when the first one was not retried.
	Attempts int
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s answered %d", e.Method, e.Path, e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// newAPIError reads an error answer; any body is accepted (JSON envelope, GraphQL errors, text).
func newAPIError(method, path string, resp *http.Response, body []byte, attempts int, now time.Time) *APIError {
	e := &APIError{
		Method:     method,
		Path:       path,
		StatusCode: resp.StatusCode,
		Body:       body,
		RequestID:  resp.Header.Get("X-Request-Id"),
		Header:     resp.Header,
		Attempts:   attempts,
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		if wait, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), now); ok {
			e.RetryAfter = wait
		}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil && fields != nil {
		e.Fields = fields
		var envelope struct {
			Error           *string        `json:"error"`
			Code            *string        `json:"code"`
			ExecutionTimeMs float64        `json:"executionTimeMs"`
			Diagnostics     []Diagnostic   `json:"diagnostics"`
			Errors          []GraphQLError `json:"errors"`
		}
		// Fields of unexpected types are left zero rather than failing the whole read.
		_ = json.Unmarshal(body, &envelope)
		if envelope.Error != nil {
			e.Message = *envelope.Error
		}
		if envelope.Code != nil {
			e.Code = *envelope.Code
		}
		e.ExecutionTimeMs = envelope.ExecutionTimeMs
		e.Diagnostics = envelope.Diagnostics
		e.GraphQLErrors = envelope.Errors
		if len(envelope.Errors) > 0 {
			if e.Message == "" {
				e.Message = envelope.Errors[0].Message
			}
			if e.Code == "" {
				e.Code = envelope.Errors[0].Code()
			}
		}
	} else if text := strings.TrimSpace(string(body)); text != "" {
		if len(text) > 200 {
			text = text[:200]
		}
		e.Message = text
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// ProtocolError is a 2xx answer whose body is not what the interface promises.
type ProtocolError struct {
	StatusCode int
	Message    string
	Body       []byte
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("policyclient: answer %d: %s", e.StatusCode, e.Message)
}

// NetworkError is a request that got no HTTP answer (connection refused or reset, timeout). It is
// never retried: whether the request took effect is unknown. Unwrap gives the transport's error.
type NetworkError struct {
	Method string
	Path   string
	Err    error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("%s %s got no answer: %v", e.Method, e.Path, e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }

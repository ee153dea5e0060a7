package policyclient_test

// The retry rules against a test-local server (the one edge faked here: the real service answers
// 429/5xx only under load or faults).

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	policyclient "github.com/policy-engine/client-go"
)

const fakeSecret = "fake-tenant-secret-0001"

type seenAttempt struct {
	nonce, timestamp string
	signatureValid   bool
}

// fakeService answers the statuses in order (the last one for any further attempt) and checks
// every attempt's signature as the service would.
type fakeService struct {
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter)
	attempts []seenAttempt
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ts, _ := strconv.ParseInt(r.Header.Get("X-Policy-Timestamp"), 10, 64)
	want, err := policyclient.Signature(policyclient.SigningInput{
		Method:        r.Method,
		PathWithQuery: r.RequestURI,
		Body:          body,
		TenantID:      r.Header.Get("X-Tenant-Id"),
		Role:          r.Header.Get("X-User-Role"),
		Secret:        fakeSecret,
		Timestamp:     ts,
		Nonce:         r.Header.Get("X-Policy-Nonce"),
	})
	f.mu.Lock()
	f.attempts = append(f.attempts, seenAttempt{
		nonce:          r.Header.Get("X-Policy-Nonce"),
		timestamp:      r.Header.Get("X-Policy-Timestamp"),
		signatureValid: err == nil && want == r.Header.Get("X-Policy-Signature"),
	})
	i := len(f.attempts) - 1
	if i >= len(f.answers) {
		i = len(f.answers) - 1
	}
	answer := f.answers[i]
	f.mu.Unlock()
	answer(w)
}

func status(code int, headers ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code == http.StatusOK {
			_, _ = io.WriteString(w, `{"result":42,"error":null,"executionTimeMs":0.1,"diagnostics":[]}`)
			return
		}
		_, _ = io.WriteString(w, `{"result":null,"error":"status `+strconv.Itoa(code)+`","executionTimeMs":0,"code":"ERR_FAKE_`+strconv.Itoa(code)+`"}`)
	}
}

type sleeps struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func fakeClient(t *testing.T, f *fakeService, opts policyclient.Options) *policyclient.Client {
	t.Helper()
	server := httptest.NewServer(f)
	t.Cleanup(server.Close)
	opts.BaseURL = server.URL
	opts.TenantID = "acme"
	opts.Role = "MEMBER"
	opts.Secret = fakeSecret
	client, err := policyclient.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

var sourceRequest = policyclient.EvaluateSourceRequest{Source: pricingSource, FunctionName: "price", Context: map[string]any{"amount": 21}}

func TestRetries503ThenSucceedsResigningEachAttempt(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){
		status(http.StatusServiceUnavailable, "Retry-After", "1"),
		status(http.StatusBadGateway),
		status(http.StatusOK),
	}}
	// Real sleeping, with a short backoff: the retry really waits and then succeeds.
	client := fakeClient(t, f, policyclient.Options{Retry: policyclient.RetryPolicy{BaseDelay: 20 * time.Millisecond}})
	started := time.Now()
	answer, err := client.EvaluateSource(context.Background(), sourceRequest)
	elapsed := time.Since(started)
	if err != nil {
		t.Fatal(err)
	}
	var result int
	if err := answer.Decode(&result); err != nil || result != 42 {
		t.Fatalf("result %d, %v", result, err)
	}
	if answer.Attempts != 3 || len(f.attempts) != 3 {
		t.Fatalf("attempts %d (server saw %d), want 3", answer.Attempts, len(f.attempts))
	}
	nonces := map[string]bool{}
	for i, a := range f.attempts {
		if !a.signatureValid {
			t.Errorf("attempt %d: signature does not verify", i+1)
		}
		if nonces[a.nonce] {
			t.Errorf("attempt %d reused nonce %q", i+1, a.nonce)
		}
		nonces[a.nonce] = true
	}
	// Backoff: retry 0 waits 10–20 ms, retry 1 20–40 ms. A 5xx's Retry-After is not waited for (as
	// the TypeScript client's retry-policy.ts: only a 429's is).
	if elapsed < 30*time.Millisecond || elapsed > 900*time.Millisecond {
		t.Errorf("took %s, want the backoff (30–60 ms) plus overhead", elapsed)
	}
}

func TestBackoffGrowsAndIsBounded(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){status(http.StatusInternalServerError)}}
	var s sleeps
	client := fakeClient(t, f, policyclient.Options{
		Retry: policyclient.RetryPolicy{MaxAttempts: 6, BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond},
		Sleep: s.sleep,
	})
	_, err := client.EvaluateSource(context.Background(), sourceRequest)
	var apiErr *policyclient.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v, want *APIError", err)
	}
	if apiErr.StatusCode != 500 || apiErr.Code != "ERR_FAKE_500" || apiErr.Attempts != 6 || len(f.attempts) != 6 {
		t.Fatalf("got %d %s after %d attempts (server saw %d)", apiErr.StatusCode, apiErr.Code, apiErr.Attempts, len(f.attempts))
	}
	steps := []time.Duration{100, 200, 300, 300, 300}
	if len(s.delays) != len(steps) {
		t.Fatalf("slept %v", s.delays)
	}
	for i, d := range s.delays {
		step := steps[i] * time.Millisecond
		if d < step/2 || d > step {
			t.Errorf("retry %d waited %s, want between %s and %s", i, d, step/2, step)
		}
	}
}

func TestHonoursRetryAfterOn429(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){
		status(http.StatusTooManyRequests, "Retry-After", "1"),
		status(http.StatusOK),
	}}
	client := fakeClient(t, f, policyclient.Options{})
	started := time.Now()
	answer, err := client.EvaluateSource(context.Background(), sourceRequest)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(started); elapsed < time.Second {
		t.Errorf("retried after %s, before the Retry-After of 1 s", elapsed)
	}
	if answer.Attempts != 2 || f.attempts[0].nonce == f.attempts[1].nonce || !f.attempts[1].signatureValid {
		t.Errorf("attempts %d, %+v", answer.Attempts, f.attempts)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := &fakeService{answers: []func(http.ResponseWriter){
		status(http.StatusTooManyRequests, "Retry-After", now.Add(7*time.Second).Format(http.TimeFormat)),
		status(http.StatusOK),
	}}
	var s sleeps
	client := fakeClient(t, f, policyclient.Options{Sleep: s.sleep, Now: func() time.Time { return now }})
	if _, err := client.EvaluateSource(context.Background(), sourceRequest); err != nil {
		t.Fatal(err)
	}
	if len(s.delays) != 1 || s.delays[0] < 7*time.Second || s.delays[0] > 7*time.Second+100*time.Millisecond {
		t.Errorf("slept %v, want 7 s plus at most 100 ms of jitter", s.delays)
	}
}

func TestDoesNotWaitOutALongRetryAfter(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){status(http.StatusTooManyRequests, "Retry-After", "31")}}
	var s sleeps
	client := fakeClient(t, f, policyclient.Options{Sleep: s.sleep})
	_, err := client.EvaluateSource(context.Background(), sourceRequest)
	var apiErr *policyclient.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 31*time.Second || apiErr.Attempts != 1 {
		t.Fatalf("error %#v", err)
	}
	if len(s.delays) != 0 || len(f.attempts) != 1 {
		t.Errorf("slept %v, %d attempts", s.delays, len(f.attempts))
	}
}

func TestOther4xxAreNotRetried(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 409, 413, 422} {
		f := &fakeService{answers: []func(http.ResponseWriter){status(code)}}
		var s sleeps
		client := fakeClient(t, f, policyclient.Options{Sleep: s.sleep})
		_, err := client.EvaluateSource(context.Background(), sourceRequest)
		var apiErr *policyclient.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != code || apiErr.Attempts != 1 || len(f.attempts) != 1 || len(s.delays) != 0 {
			t.Errorf("%d: error %v, %d attempts", code, err, len(f.attempts))
		}
	}
}

func TestMaxAttemptsOneDisablesRetrying(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){status(http.StatusServiceUnavailable)}}
	client := fakeClient(t, f, policyclient.Options{Retry: policyclient.RetryPolicy{MaxAttempts: 1}})
	_, err := client.EvaluateSource(context.Background(), sourceRequest)
	var apiErr *policyclient.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || len(f.attempts) != 1 {
		t.Fatalf("error %v, %d attempts", err, len(f.attempts))
	}
}

func TestNoAnswerIsNotRetried(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := server.URL
	server.Close() // nothing listens there any more
	client, err := policyclient.New(policyclient.Options{BaseURL: url, TenantID: "acme", Role: "MEMBER", Secret: fakeSecret})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.EvaluateSource(context.Background(), sourceRequest)
	var netErr *policyclient.NetworkError
	if !errors.As(err, &netErr) {
		t.Fatalf("error %v, want *NetworkError", err)
	}
}

func TestContextCancelsTheWait(t *testing.T) {
	f := &fakeService{answers: []func(http.ResponseWriter){status(http.StatusTooManyRequests, "Retry-After", "20")}}
	client := fakeClient(t, f, policyclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err := client.EvaluateSource(ctx, sourceRequest)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(started) > 5*time.Second {
		t.Fatalf("error %v after %s", err, time.Since(started))
	}
}

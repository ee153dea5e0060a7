package policyclient

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says when a request is tried again, following the interface's client rules (as
// the TypeScript client's retry-policy.ts implements them):
//
//   - 429 is retried after Retry-After (seconds or an HTTP date), never earlier, plus up to
//     BaseDelay of jitter; a Retry-After longer than MaxRetryAfter is not waited out, the 429 is
//     returned instead. A 429 without a readable Retry-After is retried with backoff.
//   - 500, 502, 503 and 504 are retried with exponential backoff ("equal jitter"): retry n
//     (0-based) waits between half and all of min(MaxDelay, BaseDelay × 2^n). Their Retry-After is
//     not consulted.
//   - Every other status is never retried, and neither is a request that got no answer at all
//     (whether it took effect is unknown).
//
// Zero fields take the defaults (4 attempts, 100 ms, 5 s, 30 s).
type RetryPolicy struct {
	// MaxAttempts counts the first attempt: 1 disables retrying. 0 means the default, 4
	// (the TypeScript client's `retries: 3`).
	MaxAttempts int
	// BaseDelay is the first backoff step; step n is capped at BaseDelay × 2^n.
	BaseDelay time.Duration
	// MaxDelay bounds every backoff step.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After (on a 429) that is waited for.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is the interface's default: 3 retries, 100 ms base, 5 s cap, 30 s longest Retry-After.
var DefaultRetryPolicy = RetryPolicy{
	MaxAttempts:   4,
	BaseDelay:     100 * time.Millisecond,
	MaxDelay:      5 * time.Second,
	MaxRetryAfter: 30 * time.Second,
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryPolicy.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultRetryPolicy.MaxRetryAfter
	}
	return p
}

// IsRetryableStatus reports whether a status may be retried: 429, 500, 502, 503, 504.
func IsRetryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

var (
	digitsPattern = regexp.MustCompile(`^\d+$`)
	// `Sun, 06 Nov 1994 08:49:37 GMT`: the date form servers must send (RFC 9110 §5.6.7).
	imfFixdatePattern = regexp.MustCompile(`^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$`)
)

// ParseRetryAfter reads a Retry-After value (delta-seconds or an IMF-fixdate) as a wait from now.
// ok is false when the value is absent or unreadable.
func ParseRetryAfter(value string, now time.Time) (wait time.Duration, ok bool) {
	text := strings.TrimSpace(value)
	if text == "" {
		return 0, false
	}
	if digitsPattern.MatchString(text) {
		seconds, err := strconv.ParseInt(text, 10, 64)
		if err != nil || seconds > int64(math.MaxInt64/time.Second) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(seconds) * time.Second, true
	}
	if !imfFixdatePattern.MatchString(text) {
		return 0, false
	}
	date, err := time.Parse(http.TimeFormat, text)
	if err != nil {
		return 0, false
	}
	if wait = date.Sub(now); wait < 0 {
		wait = 0
	}
	return wait, true
}

// backoffDelay is retry n's wait: half the step fixed, half random (random in [0, 1)).
func backoffDelay(retryIndex int, p RetryPolicy, random func() float64) time.Duration {
	step := float64(p.MaxDelay)
	if retryIndex < 62 {
		step = math.Min(step, float64(p.BaseDelay)*math.Pow(2, float64(retryIndex)))
	}
	return time.Duration(math.Round(step/2 + random()*(step/2)))
}

// decideRetry says whether and how long to wait after attempt retryIndex+1 answered status.
func decideRetry(status int, retryAfter string, retryIndex int, p RetryPolicy, random func() float64, now time.Time) (time.Duration, bool) {
	if !IsRetryableStatus(status) || retryIndex+1 >= p.MaxAttempts {
		return 0, false
	}
	if status == http.StatusTooManyRequests {
		wait, ok := ParseRetryAfter(retryAfter, now)
		if !ok {
			return backoffDelay(retryIndex, p, random), true
		}
		if wait > p.MaxRetryAfter {
			return 0, false
		}
		// Never earlier than the server asked; the small random extra spreads a crowd told the same.
		return wait + time.Duration(math.Round(random()*float64(p.BaseDelay))), true
	}
	return backoffDelay(retryIndex, p, random), true
}

package deliver

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// MaxRetryAfter caps how long a destination's Retry-After can hold a
// delivery back.
const MaxRetryAfter = time.Hour

// Policy is one destination's retry schedule.
type Policy struct {
	Attempts     int // tries in all
	InitialDelay time.Duration
	Multiplier   float64
	// Jitter returns a fraction in [0, 1); the delay grows by up to 10% of
	// it, so retries of many deliveries failed together spread out.
	Jitter func() float64
}

// Next decides what follows failed try n (1-based) at now: retry at the
// returned time, or give up when final. retryAfter, when positive, is the
// destination's Retry-After and is honoured up to MaxRetryAfter.
func (p Policy) Next(n int, now time.Time, retryAfter time.Duration) (at time.Time, final bool) {
	if n >= p.Attempts {
		return time.Time{}, true
	}
	d := float64(p.InitialDelay) * math.Pow(p.Multiplier, float64(n-1))
	if p.Jitter != nil {
		d += d * 0.1 * p.Jitter()
	}
	wait := time.Duration(math.Min(d, float64(math.MaxInt64/2)))
	if retryAfter > 0 {
		wait = max(wait, min(retryAfter, MaxRetryAfter))
	}
	return now.Add(wait), false
}

// RetryAfter reads a Retry-After header (seconds or an HTTP date) of a 429
// or 503 answer; other statuses have none.
func RetryAfter(status int, h http.Header, now time.Time) time.Duration {
	if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
		return 0
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

package deliver

import (
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// Every rule of an attempt's outcome, one row each: delivered, retried at
// the policy's time or the destination's Retry-After, or failed for good.
func TestOutcome(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	policy := Policy{Attempts: 3, InitialDelay: 30 * time.Second, Multiplier: 4}
	fresh := now.Add(-time.Minute)
	tests := []struct {
		name string
		t    tried
		want verdict
	}{
		{"a 2xx delivers", tried{Result: Result{StatusCode: 204}, Number: 1, Created: fresh},
			verdict{State: store.Delivered, Label: "delivered"}},
		{"a first failure waits the initial delay", tried{Result: Result{StatusCode: 500, ErrorClass: "http_5xx"}, Number: 1, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(30 * time.Second), Label: "retry"}},
		{"a second failure waits delay times multiplier", tried{Result: Result{StatusCode: 500, ErrorClass: "http_5xx"}, Number: 2, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(2 * time.Minute), Label: "retry"}},
		{"the last try fails for good", tried{Result: Result{StatusCode: 500, ErrorClass: "http_5xx"}, Number: 3, Created: fresh},
			verdict{State: store.Failed, Label: "failed"}},
		{"Retry-After longer than the schedule is honoured", tried{Result: Result{StatusCode: 429, ErrorClass: "http_429", RetryAfter: 10 * time.Minute}, Number: 1, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(10 * time.Minute), Label: "retry"}},
		{"Retry-After shorter than the schedule is not", tried{Result: Result{StatusCode: 503, ErrorClass: "http_5xx", RetryAfter: time.Second}, Number: 1, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(30 * time.Second), Label: "retry"}},
		{"Retry-After is capped at an hour", tried{Result: Result{StatusCode: 429, ErrorClass: "http_429", RetryAfter: 5 * time.Hour}, Number: 1, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(MaxRetryAfter), Label: "retry"}},
		{"Retry-After on the last try does not keep it", tried{Result: Result{StatusCode: 429, ErrorClass: "http_429", RetryAfter: time.Minute}, Number: 3, Created: fresh},
			verdict{State: store.Failed, Label: "failed"}},
		{"a permanent failure fails at once", tried{Result: Result{ErrorClass: ClassUnknownType, Permanent: true}, Number: 1, Created: fresh},
			verdict{State: store.Failed, Label: "failed"}},
		{"an unreadable payload fails at once", tried{Result: Result{ErrorClass: ClassPayloadUnreadable, Permanent: true}, Number: 1, Created: fresh},
			verdict{State: store.Failed, Label: "failed"}},
		{"an unknown destination is looked at again in a minute", tried{Result: Result{ErrorClass: ClassDestinationRemoved, Permanent: true}, Number: 5, Created: now.Add(-59 * time.Minute)},
			verdict{State: store.Pending, NextAt: now.Add(time.Minute), Label: "retry"}},
		{"an unknown destination fails after the grace", tried{Result: Result{ErrorClass: ClassDestinationRemoved, Permanent: true}, Number: 60, Created: now.Add(-removedGrace)},
			verdict{State: store.Failed, Label: "failed"}},
		{"a 410 Gone, even on the last try, waits for the destination to be resumed", tried{Result: Result{StatusCode: 410, ErrorClass: ClassGone}, Number: 3, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(time.Second), Label: "paused"}},
		{"an update whose earlier results are on their way waits, past its last try", tried{Result: Result{ErrorClass: ClassUpdatedUnconfirmed}, Number: 3, Created: fresh},
			verdict{State: store.Pending, NextAt: now.Add(updateWait), Label: "waiting"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcome(tt.t, policy, now); got != tt.want {
				t.Errorf("outcome = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Jitter spreads the retries of deliveries that failed together by up to
// 10% of the delay, never below the schedule.
func TestOutcomeJitter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		jitter float64
		wait   time.Duration
	}{{0, 10 * time.Second}, {0.5, 10500 * time.Millisecond}, {0.999, 10999 * time.Millisecond}} {
		p := Policy{Attempts: 2, InitialDelay: 10 * time.Second, Multiplier: 2, Jitter: func() float64 { return tt.jitter }}
		got := outcome(tried{Result: Result{ErrorClass: "timeout"}, Number: 1, Created: now}, p, now)
		if got.NextAt.Sub(now) != tt.wait {
			t.Errorf("jitter %v: wait %v, want %v", tt.jitter, got.NextAt.Sub(now), tt.wait)
		}
	}
}

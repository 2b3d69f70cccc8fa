package deliver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestPolicyDefaultsWaitThirtySecondsThenTwoMinutesThenGiveUp(t *testing.T) {
	t.Parallel()
	p := deliver.Policy{Attempts: 3, InitialDelay: 30 * time.Second, Multiplier: 4}
	tests := []struct {
		n     int
		wait  time.Duration
		final bool
	}{
		{1, 30 * time.Second, false},
		{2, 2 * time.Minute, false},
		{3, 0, true},
	}
	for _, tt := range tests {
		at, final := p.Next(tt.n, now, 0)
		if final != tt.final || (!final && at.Sub(now) != tt.wait) {
			t.Errorf("after try %d: wait %v final %v, want %v %v", tt.n, at.Sub(now), final, tt.wait, tt.final)
		}
	}
}

func TestPolicyJitterAddsAtMostTenPercent(t *testing.T) {
	t.Parallel()
	for _, j := range []float64{0, 0.5, 0.999} {
		p := deliver.Policy{Attempts: 5, InitialDelay: time.Second, Multiplier: 2, Jitter: func() float64 { return j }}
		at, _ := p.Next(3, now, 0) // 4s before jitter
		want := 4*time.Second + time.Duration(float64(4*time.Second)*0.1*j)
		if at.Sub(now) != want {
			t.Errorf("jitter %v: wait %v, want %v", j, at.Sub(now), want)
		}
	}
}

func TestPolicyHonoursRetryAfterUpToAnHour(t *testing.T) {
	t.Parallel()
	p := deliver.Policy{Attempts: 3, InitialDelay: time.Second, Multiplier: 4}
	for _, tt := range []struct{ retryAfter, want time.Duration }{
		{0, time.Second},
		{500 * time.Millisecond, time.Second}, // never sooner than the schedule
		{90 * time.Second, 90 * time.Second},
		{5 * time.Hour, time.Hour},
	} {
		if at, _ := p.Next(1, now, tt.retryAfter); at.Sub(now) != tt.want {
			t.Errorf("Retry-After %v: wait %v, want %v", tt.retryAfter, at.Sub(now), tt.want)
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	t.Parallel()
	h := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	tests := []struct {
		status int
		h      http.Header
		want   time.Duration
	}{
		{429, h("120"), 2 * time.Minute},
		{503, h(now.Add(time.Minute).Format(http.TimeFormat)), time.Minute},
		{500, h("120"), 0}, // only 429 and 503 carry it
		{429, h("soon"), 0},
		{429, h("-5"), 0},
		{429, http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := deliver.RetryAfter(tt.status, tt.h, now); got != tt.want {
			t.Errorf("%d %v: %v, want %v", tt.status, tt.h, got, tt.want)
		}
	}
}

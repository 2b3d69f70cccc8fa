package httpapi

import (
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

func TestSaveLimitsRefuseAClientPastItsBurstAndSayWhenToRetry(t *testing.T) {
	t.Parallel()
	var s saveLimits
	now := time.Unix(1_800_000_000, 0)
	acme := &config.Client{ID: "acme", Limits: config.ClientLimits{SavesPerSecond: 2, Burst: 3}}
	globex := &config.Client{ID: "globex", Limits: config.ClientLimits{SavesPerSecond: 2, Burst: 3}}
	for i := range 3 {
		if _, ok := s.take(acme, now); !ok {
			t.Fatalf("save %d within the burst refused", i+1)
		}
	}
	wait, ok := s.take(acme, now)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: ok %v, wait %v; want refused, 500ms (one save at 2/s)", ok, wait)
	}
	if got := retryAfter(wait); got != 1 {
		t.Fatalf("Retry-After for %v = %d, want 1 (whole seconds, at least 1)", wait, got)
	}
	if _, ok := s.take(globex, now); !ok {
		t.Fatal("another client's bucket is its own")
	}
	// A refused save spent nothing: half a second later one is allowed.
	if _, ok := s.take(acme, now.Add(500*time.Millisecond)); !ok {
		t.Fatal("a save after the wait it was told is refused")
	}
}

func TestSaveLimitsSurviveAReloadUnlessTheClientsLimitsChange(t *testing.T) {
	t.Parallel()
	var s saveLimits
	now := time.Unix(1_800_000_000, 0)
	limits := config.ClientLimits{SavesPerSecond: 1, Burst: 1}
	if _, ok := s.take(&config.Client{ID: "acme", Limits: limits}, now); !ok {
		t.Fatal("first save refused")
	}
	// A reload makes a new *config.Client with the same limits: the bucket
	// stays spent.
	if _, ok := s.take(&config.Client{ID: "acme", Limits: limits}, now); ok {
		t.Fatal("a reload that kept the limits refilled the bucket")
	}
	// Changed limits make a new, full bucket.
	raised := &config.Client{ID: "acme", Limits: config.ClientLimits{SavesPerSecond: 10, Burst: 5}}
	for i := range 5 {
		if _, ok := s.take(raised, now); !ok {
			t.Fatalf("save %d of the new burst refused", i+1)
		}
	}
	if wait, ok := s.take(raised, now); ok || wait != 100*time.Millisecond {
		t.Fatalf("past the new burst: ok %v wait %v", ok, wait)
	}
	if got := retryAfter(2500 * time.Millisecond); got != 3 {
		t.Fatalf("Retry-After rounds up: got %d, want 3", got)
	}
}

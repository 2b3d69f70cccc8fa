package operator_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// failingAudit is a store whose audit log cannot be written.
type failingAudit struct{ store.Store }

func (failingAudit) Audit(context.Context, store.AuditEntry) error { return errors.New("disk full") }

// countingReplay counts the replays that reach the store.
type countingReplay struct {
	store.Store
	replays int
}

func (c *countingReplay) Replay(ctx context.Context, r store.ReplayRequest) (int, error) {
	c.replays++
	return c.Store.Replay(ctx, r)
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEveryActionIsAuditedBeforeItRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	woken := 0
	ops := operator.New(st, nil, func() { woken++ })
	// One failed delivery to replay.
	if _, err := storetest.Saves(t, st).Save(ctx, "acme", storetest.Request("acme", "", "a@example.com", record.Fields{FormCompleted: new(true)})); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)
	claimed, err := st.Claim(ctx, store.ClaimRequest{Owner: "p", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 1})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	c := claimed[0]
	st.Finish(ctx, store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: 1, Number: 1, Owner: "p",
		StartedAt: now, ErrorClass: "http_5xx", StatusCode: 500}, State: store.Failed})

	if _, err := ops.List(ctx, "cli:ada", operator.ListRequest{State: store.Failed}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ops.Show(ctx, "cli:ada", 9999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Show of no delivery: %v", err)
	}
	if n, err := ops.Replay(ctx, "admin:ops", c.ID); n != 1 || err != nil {
		t.Fatalf("Replay = %d, %v", n, err)
	}
	if n, err := ops.ReplayFailed(ctx, "admin:ops", now.Add(-time.Hour), "acme"); n != 0 || err != nil {
		t.Fatalf("ReplayFailed = %d, %v (the delivery is pending again)", n, err)
	}
	if woken != 1 {
		t.Fatalf("the dispatcher was woken %d times, want once (after the replay that changed something)", woken)
	}
	log, err := ops.AuditLog(ctx, "cli:ada", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cli:ada audit.read ",
		`admin:ops deliveries.replay_failed failed since ` + now.Add(-time.Hour).UTC().Format(time.RFC3339) + ` client="acme"`,
		"admin:ops deliveries.replay delivery:1",
		"cli:ada deliveries.show delivery:9999",
		`cli:ada deliveries.list status="failed"`,
	}
	if len(log) != len(want) {
		t.Fatalf("audit log %+v", log)
	}
	for i, e := range log {
		if got := e.Actor + " " + e.Action + " " + e.Target; got != want[i] {
			t.Errorf("entry %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestAnActionWhoseAuditFailsDoesNotHappen(t *testing.T) {
	t.Parallel()
	st := &countingReplay{Store: failingAudit{openStore(t)}}
	ops := operator.New(st, nil, nil)
	if _, err := ops.Replay(context.Background(), "admin:ops", 1); err == nil {
		t.Fatal("Replay without its audit entry succeeded")
	}
	if _, err := ops.ReplayFailed(context.Background(), "admin:ops", time.Now(), ""); err == nil {
		t.Fatal("ReplayFailed without its audit entry succeeded")
	}
	if st.replays != 0 {
		t.Fatalf("%d replays ran without their audit entry", st.replays)
	}
}

func TestRequestsToCorrectAreInvalidErrors(t *testing.T) {
	t.Parallel()
	ops := operator.New(openStore(t), nil, nil)
	ctx := context.Background()
	for name, err := range map[string]error{
		"bad status":     errOf(ops.List(ctx, "a", operator.ListRequest{State: "lost"})),
		"limit too high": errOf(ops.List(ctx, "a", operator.ListRequest{Limit: operator.MaxLimit + 1})),
		"negative limit": errOf(ops.AuditLog(ctx, "a", -1)),
	} {
		if _, ok := operator.IsInvalid(err); !ok {
			t.Errorf("%s: %v, want an InvalidError", name, err)
		}
	}
}

func errOf[T any](_ T, err error) error { return err }

func TestParseSinceAndLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	since := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"24h", now.Add(-24 * time.Hour), true},
		{"90m", now.Add(-90 * time.Minute), true},
		{"2026-11-24T08:00:00Z", time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), true},
		{"2026-11-24T08:00:00+01:00", time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC), true},
		{"", time.Time{}, false},
		{"-1h", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"2026-11-24", time.Time{}, false},
	}
	for _, tt := range since {
		got, err := operator.ParseSince(tt.in, now)
		if (err == nil) != tt.ok || tt.ok && !got.Equal(tt.want) {
			t.Errorf("ParseSince(%q) = %v, %v", tt.in, got, err)
		}
	}
	limits := []struct {
		in   string
		want int
		ok   bool
	}{
		{"", operator.DefaultLimit, true}, {"1", 1, true}, {"1000", 1000, true},
		{"0", 0, false}, {"1001", 0, false}, {"ten", 0, false}, {"-5", 0, false},
	}
	for _, tt := range limits {
		got, err := operator.ParseLimit(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseLimit(%q) = %d, %v", tt.in, got, err)
		}
	}
}

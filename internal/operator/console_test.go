package operator_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/operator"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

func TestConsoleActionsAreAuditedBeforeTheyRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	counting := &countingReplay{Store: openStore(t)}
	ops := operator.New(failingAudit{counting}, nil, nil)
	since := time.Now().Add(-time.Hour)
	calls := map[string]error{}
	_, calls["Page"] = ops.Page(ctx, "console:ops", operator.PageRequest{})
	_, calls["Overview"] = ops.Overview(ctx, "console:ops", nil)
	_, calls["CountFailed"] = ops.CountFailed(ctx, "console:ops", operator.FailedSelection{Since: since})
	_, calls["ReplayFailedOf"] = ops.ReplayFailedOf(ctx, "console:ops", operator.FailedSelection{Since: since, ClientID: "acme", Destination: "d1"})
	_, _, calls["AuditPage"] = ops.AuditPage(ctx, "console:ops", operator.AuditRequest{})
	calls["SignIn"] = ops.SignIn(ctx, "console:ops")
	calls["SignOut"] = ops.SignOut(ctx, "console:ops")
	for name, err := range calls {
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s without an audit log: %v", name, err)
		}
	}
	if counting.replays != 0 {
		t.Fatal("a replay ran without its audit entry")
	}

	// With the audit log, each writes its own action first.
	st := openStore(t)
	ops = operator.New(st, nil, nil)
	ops.Page(ctx, "console:ops", operator.PageRequest{ClientID: "acme", State: store.Failed})
	ops.Overview(ctx, "console:ops", nil)
	ops.CountFailed(ctx, "console:ops", operator.FailedSelection{Since: since, ClientID: "acme", Destination: "d1"})
	ops.ReplayFailedOf(ctx, "console:ops", operator.FailedSelection{Since: since, ClientID: "acme", Destination: "d1"})
	ops.SignIn(ctx, "console:ops")
	ops.SignOut(ctx, "console:ops")
	entries, next, err := ops.AuditPage(ctx, "console:ops", operator.AuditRequest{Actor: "console:ops", Limit: 20})
	if err != nil || next != 0 {
		t.Fatalf("AuditPage: %v, next %d", err, next)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Action+" "+e.Target)
	}
	want := []string{
		`audit.read actor="console:ops"`,
		"console.signout ",
		"console.signin ",
		`deliveries.replay_failed failed since ` + since.UTC().Format(time.RFC3339) + ` client="acme" destination="d1"`,
		`deliveries.count_failed failed since ` + since.UTC().Format(time.RFC3339) + ` client="acme" destination="d1"`,
		"console.overview ",
		`deliveries.list client="acme" status="failed"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("audit log\n got %q\nwant %q", got, want)
	}
}

func TestPageRefusesWhatItCannotSelect(t *testing.T) {
	t.Parallel()
	ops := operator.New(openStore(t), nil, nil)
	for _, r := range []operator.PageRequest{
		{State: "lost"},
		{DataType: "secret"},
		{ClientID: strings.Repeat("a", 129)},
		{MessageID: "not-a-message-id"},
		{PatientUUID: "not-a-uuid"},
		{After: "yesterday"},
		{After: "12.0"},
		{Limit: operator.MaxLimit + 1},
		{Since: time.Now(), Until: time.Now().Add(-time.Hour)},
	} {
		if _, err := ops.Page(context.Background(), "cli:ada", r); err == nil {
			t.Errorf("%+v was accepted", r)
		} else if _, ok := operator.IsInvalid(err); !ok {
			t.Errorf("%+v: %v is not an InvalidError", r, err)
		}
	}
	for _, dt := range []record.DataType{record.NonSensitive, record.Sensitive, record.ResultsUpdated} {
		if _, err := ops.Page(context.Background(), "cli:ada", operator.PageRequest{DataType: string(dt)}); err != nil {
			t.Errorf("the deliveries of type %s: %v", dt, err)
		}
	}
	for _, f := range []operator.FailedSelection{{}, {Since: time.Now(), Destination: "d1"}} {
		if _, err := ops.CountFailed(context.Background(), "cli:ada", f); err == nil {
			t.Errorf("CountFailed(%+v) was accepted", f)
		}
		if _, err := ops.ReplayFailedOf(context.Background(), "cli:ada", f); err == nil {
			t.Errorf("ReplayFailedOf(%+v) was accepted", f)
		}
	}
}

func TestPagesWalkEveryDeliveryOnceNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	saves := storetest.Saves(t, st)
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} { // two deliveries each
		if _, err := saves.Save(ctx, "acme", storetest.Request("acme", "", email, record.Fields{FormCompleted: new(true)})); err != nil {
			t.Fatal(err)
		}
	}
	ops := operator.New(st, nil, nil)
	var ids []int64
	after := ""
	for range 10 {
		p, err := ops.Page(ctx, "cli:ada", operator.PageRequest{ClientID: "acme", After: after, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Deliveries {
			ids = append(ids, d.ID)
		}
		if after = p.Next; after == "" {
			break
		}
	}
	if !slices.Equal(ids, []int64{6, 5, 4, 3, 2, 1}) {
		t.Fatalf("pages of 4 gave %v", ids)
	}
}

// statsStore answers the overview's reads with fixed statistics.
type statsStore struct {
	store.Store
	stats []store.DestinationStats
	asked store.StatsQuery
	from  time.Time
}

func (s *statsStore) Audit(context.Context, store.AuditEntry) error { return nil }

func (s *statsStore) PausedDestinations(context.Context) ([]store.Pause, error) { return nil, nil }

func (s *statsStore) DestinationStats(_ context.Context, q store.StatsQuery) ([]store.DestinationStats, error) {
	s.asked = q
	return s.stats, nil
}

func (s *statsStore) Throughput(_ context.Context, from, to time.Time, step time.Duration) ([]store.ThroughputBucket, error) {
	s.from = from
	return []store.ThroughputBucket{{Start: from}}, nil
}

func TestOverviewSaysWhichDestinationIsInTroubleWhyAndSinceWhen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 30, 20, 0, time.UTC)
	attempt := func(ago time.Duration, ms int, class string, status int) store.Attempt {
		return store.Attempt{StartedAt: now.Add(-ago), Duration: time.Duration(ms) * time.Millisecond, ErrorClass: class, StatusCode: status}
	}
	// Newest first, as the store gives them.
	failing := []store.Attempt{attempt(time.Minute, 30, "http_5xx", 503), attempt(2*time.Minute, 20, "timeout", 0),
		attempt(3*time.Minute, 10, "", 200), attempt(4*time.Minute, 40, "http_5xx", 500)}
	var healthyAttempts []store.Attempt
	for i := range 100 {
		healthyAttempts = append(healthyAttempts, attempt(time.Duration(i)*time.Second, i+1, "", 200))
	}
	fs := &statsStore{stats: []store.DestinationStats{
		{DestinationRef: store.DestinationRef{ClientID: "acme", ID: "calm"}, Day: store.StateCounts{Delivered: 100}, Recent: healthyAttempts},
		{DestinationRef: store.DestinationRef{ClientID: "acme", ID: "down"}, Hour: store.StateCounts{Failed: 2},
			Day: store.StateCounts{Delivered: 3, Failed: 1}, Recent: failing},
		{DestinationRef: store.DestinationRef{ClientID: "globex", ID: "slow"}, OldestPending: now.Add(-20 * time.Minute),
			Day: store.StateCounts{Pending: 1}},
		{DestinationRef: store.DestinationRef{ClientID: "initech", ID: "idle"}},
	}}
	ops := operator.New(fs, func() time.Time { return now }, nil)
	known := []store.DestinationRef{{ClientID: "initech", ID: "idle"}}
	o, err := ops.Overview(context.Background(), "console:ops", known)
	if err != nil {
		t.Fatal(err)
	}
	if fs.asked.Samples != operator.LatencySamples || !fs.asked.Now.Equal(now) || len(fs.asked.Destinations) != 1 {
		t.Fatalf("asked the store %+v", fs.asked)
	}
	if want := time.Date(2026, 11, 21, 9, 31, 0, 0, time.UTC); !fs.from.Equal(want) {
		t.Fatalf("the chart starts at %v, want %v (three hours of whole minutes, this one included)", fs.from, want)
	}
	var order []string
	for _, h := range o.Destinations {
		order = append(order, h.ID)
	}
	if !slices.Equal(order, []string{"down", "slow", "calm", "idle"}) {
		t.Fatalf("order %v: trouble first, then as the store gave them", order)
	}
	down, slow, calm, idle := o.Destinations[0], o.Destinations[1], o.Destinations[2], o.Destinations[3]
	if down.LastError != "http_5xx" || down.LastStatus != 503 || !down.LastErrorAt.Equal(now.Add(-time.Minute)) ||
		!down.FailingSince.Equal(now.Add(-2*time.Minute)) || down.FailingLonger || down.SuccessRate != 0.75 {
		t.Errorf("down: %+v", down)
	}
	if !slices.Equal(down.Trouble, []string{"latest attempts failed (http_5xx)", "2 failed in the last hour"}) {
		t.Errorf("down's trouble: %q", down.Trouble)
	}
	if down.P50 != 20*time.Millisecond || down.P95 != 40*time.Millisecond || down.Sampled != 4 {
		t.Errorf("down's latency: p50 %v p95 %v of %d", down.P50, down.P95, down.Sampled)
	}
	if slow.OldestPending != 20*time.Minute || !slices.Equal(slow.Trouble, []string{"oldest pending delivery waiting 20m0s"}) || slow.SuccessRate != -1 {
		t.Errorf("slow: %+v", slow)
	}
	if len(calm.Trouble) != 0 || calm.P50 != 50*time.Millisecond || calm.P95 != 95*time.Millisecond || calm.SuccessRate != 1 ||
		calm.LastError != "" || !calm.FailingSince.IsZero() {
		t.Errorf("calm: %+v", calm)
	}
	if len(idle.Trouble) != 0 || idle.Sampled != 0 || idle.P50 != 0 || idle.SuccessRate != -1 {
		t.Errorf("idle: %+v", idle)
	}
}

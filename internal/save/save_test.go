package save_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/store"
)

const clients = `
clients:
  - id: acme
    apiKeys: [{key: acme-test-key-0123456789}]
    subscription: full
    funnels: [{id: acme-main}, {id: acme-staging, environment: staging}]
    destinations:
      - {id: prod-hook, type: webhook, url: "https://hooks.acme.example/prod"}
      - {environment: staging, type: webhook, url: "https://hooks.acme.example/staging"}
  - id: globex
    apiKeys: [{key: globex-test-key-0123456789}]
    funnels: [{id: globex-main}]
`

// fakeStore keeps one record in memory and answers the first conflicts
// commits of it with store.ErrConflict.
type fakeStore struct {
	store.Records
	mu        sync.Mutex
	stored    *store.Stored
	conflicts int
	commits   []store.Commit
}

func (f *fakeStore) Find(ctx context.Context, l store.Lookup) (*store.Stored, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stored == nil {
		return nil, nil
	}
	cp := *f.stored
	return &cp, nil
}

func (f *fakeStore) Commit(ctx context.Context, c store.Commit) (store.Committed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conflicts > 0 {
		f.conflicts--
		return store.Committed{}, store.ErrConflict
	}
	f.commits = append(f.commits, c)
	version := int64(1)
	if c.Previous != nil {
		version = c.Previous.Version + 1
	}
	f.stored = &store.Stored{Record: c.Record, Version: version}
	return store.Committed{Deliveries: len(c.Events) * len(c.Destinations)}, nil
}

func service(t *testing.T, st store.Records, enqueued func(...store.DestinationRef)) *save.Service {
	t.Helper()
	cfg, err := config.Parse([]byte(clients), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	snap := func(dt record.DataType, rec record.Record, _ map[string]string) ([]byte, string, error) {
		return []byte(`{"uuid":"` + rec.PatientUUID + `"}`), "test-model", nil
	}
	return save.New(save.Deps{Store: st, Config: func() *config.Config { return cfg }, Snapshot: snap, Enqueued: enqueued})
}

func request(funnel string, f record.Fields) *intake.Request {
	f.AssessmentType, f.FunnelID, f.Email = new("faceScan"), new(funnel), new("ada@example.com")
	return &intake.Request{AssessmentType: "faceScan", FunnelID: funnel, Email: "ada@example.com", Patch: record.Patch{Values: f}}
}

func TestAFunnelOfAnotherClientOrNoneIsForbidden(t *testing.T) {
	t.Parallel()
	st := &fakeStore{}
	s := service(t, st, nil)
	for _, tt := range []struct{ client, funnel string }{
		{"acme", "globex-main"},  // another client's funnel
		{"acme", "nobody-main"},  // no such funnel
		{"initech", "acme-main"}, // a client the config no longer has
	} {
		if _, err := s.Save(context.Background(), tt.client, request(tt.funnel, record.Fields{})); !errors.Is(err, save.ErrForbidden) {
			t.Errorf("%s via %s: %v, want ErrForbidden", tt.client, tt.funnel, err)
		}
	}
	if len(st.commits) != 0 {
		t.Fatal("a forbidden save was committed")
	}
}

func TestEventsGoToTheDestinationsOfTheFunnelsEnvironment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ funnel, dest string }{
		{"acme-main", "prod-hook"},
		{"acme-staging", "staging-1"}, // a destination without id: environment and place
	} {
		st := &fakeStore{}
		var woken []store.DestinationRef
		s := service(t, st, func(refs ...store.DestinationRef) { woken = append(woken, refs...) })
		res, err := s.Save(context.Background(), "acme", request(tt.funnel, record.Fields{FormCompleted: new(true)}))
		if err != nil {
			t.Fatal(err)
		}
		c := st.commits[0]
		if !slices.Equal(c.Destinations, []string{tt.dest}) || len(c.Events) != 1 || c.Events[0].Model != "test-model" ||
			string(c.Events[0].Payload) != `{"uuid":"`+res.PatientUUID+`"}` {
			t.Fatalf("%s: commit %+v", tt.funnel, c)
		}
		if !slices.Equal(woken, []store.DestinationRef{{ClientID: "acme", ID: tt.dest}}) {
			t.Fatalf("%s: dispatcher woken for %v", tt.funnel, woken)
		}
	}
}

func TestAConflictStartsTheSaveOverFromAFreshRead(t *testing.T) {
	t.Parallel()
	st := &fakeStore{conflicts: 3}
	s := service(t, st, nil)
	res, err := s.Save(context.Background(), "acme", request("acme-main", record.Fields{City: new("London")}))
	if err != nil || !res.Created {
		t.Fatalf("Save = %+v, %v", res, err)
	}
	if len(st.commits) != 1 || *st.commits[0].Record.Fields.City != "London" {
		t.Fatalf("commits %+v", st.commits)
	}
	// The uuid a create without one gets is the same on every attempt.
	if res.PatientUUID != st.commits[0].Record.PatientUUID {
		t.Fatalf("answered %s, committed %s", res.PatientUUID, st.commits[0].Record.PatientUUID)
	}
}

func TestARecordThatKeepsChangingAnswersBusy(t *testing.T) {
	t.Parallel()
	st := &fakeStore{conflicts: 1000}
	if _, err := service(t, st, nil).Save(context.Background(), "acme", request("acme-main", record.Fields{})); !errors.Is(err, save.ErrBusy) {
		t.Fatalf("Save = %v, want ErrBusy", err)
	}
	if len(st.commits) != 0 {
		t.Fatal("a busy save was committed")
	}
}

func TestAnUpdateCommitsOverTheVersionItRead(t *testing.T) {
	t.Parallel()
	st := &fakeStore{}
	s := service(t, st, nil)
	first, err := s.Save(context.Background(), "acme", request("acme-main", record.Fields{City: new("London")}))
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Save(context.Background(), "acme", request("acme-main", record.Fields{State: new("LDN")}))
	if err != nil || second.Created || second.PatientUUID != first.PatientUUID {
		t.Fatalf("second save = %+v, %v", second, err)
	}
	c := st.commits[1]
	if c.Previous == nil || c.Previous.Version != 1 || *c.Record.Fields.City != "London" || *c.Record.Fields.State != "LDN" {
		t.Fatalf("update commit %+v", c)
	}
}

// With Snapshot set, each event a save raises keeps its snapshot only
// (marked so, with the snapshot's model): no payload or Bundle is built.
func TestASaveKeepsOneSnapshotPerEvent(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(clients), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	snap := func(dt record.DataType, rec record.Record, _ map[string]string) ([]byte, string, error) {
		return []byte(`{"snapshot":"` + string(dt) + `"}`), "snap-model", nil
	}
	st := &fakeStore{}
	s := save.New(save.Deps{Store: st, Config: func() *config.Config { return cfg }, Snapshot: snap})
	if _, err := s.Save(context.Background(), "acme", request("acme-main", record.Fields{FormCompleted: new(true),
		AssessmentCompleted: new(true)})); err != nil {
		t.Fatal(err)
	}
	events := st.commits[0].Events
	if len(events) != 2 {
		t.Fatalf("%d events, want 2", len(events))
	}
	for _, e := range events {
		if !e.Snapshot || e.FHIR != nil || e.Model != "snap-model" || string(e.Payload) != `{"snapshot":"`+string(e.DataType)+`"}` {
			t.Errorf("event %+v", e)
		}
	}
}

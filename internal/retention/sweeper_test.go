package retention_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/retention"
	"github.com/pads-dev/pads/internal/store"
)

// fakeStore sweeps batches of 2 until left is 0, and counts its calls.
type fakeStore struct {
	store.Lifecycle
	locked   bool // another process holds the sweep
	left     int
	pace     store.SweepPace
	requests []store.SweepRequest
}

func (f *fakeStore) SweepLock(context.Context) (func(), bool, error) {
	return func() {}, !f.locked, nil
}

func (f *fakeStore) Sweep(_ context.Context, r store.SweepRequest) (store.Swept, error) {
	f.requests = append(f.requests, r)
	n := min(f.left, 2)
	f.left -= n
	return store.Swept{Deliveries: n, More: f.left > 0}, nil
}

func (f *fakeStore) SweepPace() store.SweepPace { return f.pace }

func (f *fakeStore) SweptClients(context.Context) ([]string, error) { return []string{"gone"}, nil }

func (f *fakeStore) PendingKept(context.Context) ([]store.PendingKept, error) {
	return []store.PendingKept{{DestinationRef: store.DestinationRef{ClientID: "acme", ID: "d1"}, Deliveries: 3},
		{DestinationRef: store.DestinationRef{ClientID: "gone", ID: "d9"}, Deliveries: 2}}, nil
}

type observed struct {
	removed map[string]int
	passes  map[string]int
	kept    map[[2]string]int
}

func (o *observed) ObserveRemoved(kind string, n int)     { o.removed[kind] += n }
func (o *observed) ObservePass(outcome string)            { o.passes[outcome]++ }
func (o *observed) SetPendingKept(kept map[[2]string]int) { o.kept = kept }

const cfgText = `
clients:
  - id: acme
    apiKeys: [{key: acme-test-key-0123456789}]
    funnels: [{id: acme-main}]
    retention: {bodies: 1m, deliveries: 2m, records: 3m}
    destinations: [{id: d1, type: webhook, url: "https://d1.acme.example/hook"}]
`

func TestAPassSweepsUntilNothingIsLeftUnderEachClientsRetention(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(cfgText), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		locked   bool
		calls    int
		outcome  string
		removed  int
		keptSeen bool
	}{
		{"alone", false, 3, "ok", 5, true},
		{"another process sweeps", true, 0, "skipped", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeStore{left: 5, locked: tt.locked}
			o := &observed{removed: map[string]int{}, passes: map[string]int{}}
			s := retention.New(f, func() *config.Config { return cfg }, o, slog.New(slog.DiscardHandler), retention.Options{Pause: time.Microsecond})
			got, err := s.Pass(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(f.requests) != tt.calls || got.Deliveries != tt.removed || o.removed["deliveries"] != tt.removed || o.passes[tt.outcome] != 1 {
				t.Fatalf("%d sweeps, %+v removed, observed %+v %+v", len(f.requests), got, o.removed, o.passes)
			}
			if (o.kept[[2]string{"acme", "d1"}] == 3 && o.kept[[2]string{"other", "other"}] == 2) != tt.keptSeen {
				t.Fatalf("pending kept %v", o.kept)
			}
			if tt.calls == 0 {
				return
			}
			if tt.calls == 3 && (f.requests[0].Batch != 200 || f.requests[1].Batch != 400 || f.requests[2].Batch != 800) {
				t.Fatalf("batches %d, %d, %d: want 200, then twice as many while behind", f.requests[0].Batch, f.requests[1].Batch, f.requests[2].Batch)
			}
			r := f.requests[0]
			if !slices.Equal(r.Clients, []string{"acme", "gone"}) {
				t.Fatalf("swept clients %v, want the config's and those with data", r.Clients)
			}
			if acme := r.Retention("acme"); acme != (store.Retention{Bodies: time.Minute, Deliveries: 2 * time.Minute, Records: 3 * time.Minute}) {
				t.Fatalf("acme's retention %+v", acme)
			}
			d := config.DefaultRetention()
			if gone := r.Retention("removed-client"); gone != (store.Retention{Bodies: d.Bodies.D(), Deliveries: d.Deliveries.D()}) {
				t.Fatalf("a removed client's retention %+v, want the defaults", gone)
			}
		})
	}
}

// slowStore's batches each take 100 ms (of the bubble's clock) and it
// notes when each began.
type slowStore struct {
	fakeStore
	began []time.Time
}

func (s *slowStore) Sweep(ctx context.Context, r store.SweepRequest) (store.Swept, error) {
	s.began = append(s.began, time.Now())
	time.Sleep(100 * time.Millisecond)
	return s.fakeStore.Sweep(ctx, r)
}

// TestTheSweepRestsItsShareOfEachBatchsTime: between batches the sweep
// waits Rest times what the last one took: twice by default (a third of
// SQLite's one writer), what the store's pace asks otherwise (half on
// PostgreSQL, where its batches run beside the writer loops), what the
// options say above both.
func TestTheSweepRestsItsShareOfEachBatchsTime(t *testing.T) {
	cfg, err := config.Parse([]byte(cfgText), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		opts     float64       // Options.Rest
		paceRest float64       // the store's SweepPace().Rest
		gap      time.Duration // from a batch's start to the next one's
	}{
		{"the default", 0, 0, 300 * time.Millisecond},
		{"the store's pace", 0, 0.5, 150 * time.Millisecond},
		{"the options over the store's", 0.5, 2, 150 * time.Millisecond},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := &slowStore{fakeStore: fakeStore{left: 5, pace: store.SweepPace{Rest: tt.paceRest}}}
			o := &observed{removed: map[string]int{}, passes: map[string]int{}}
			s := retention.New(f, func() *config.Config { return cfg }, o, slog.New(slog.DiscardHandler), retention.Options{Rest: tt.opts})
			if _, err := s.Pass(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(f.began) != 3 {
				t.Fatalf("%d batches, want 3", len(f.began))
			}
			for i := 1; i < len(f.began); i++ {
				if gap := f.began[i].Sub(f.began[i-1]); gap != tt.gap {
					t.Errorf("%s: batch %d began %v after the one before, want %v", tt.name, i+1, gap, tt.gap)
				}
			}
		})
	}
}

// TestTheBatchesGrowToTheStoresMaxBatch: while a pass finds more, each
// batch takes twice the last, up to the store's MaxBatch (SQLite asks for
// 500), or DefaultMaxBatch when the store says nothing.
func TestTheBatchesGrowToTheStoresMaxBatch(t *testing.T) {
	cfg, err := config.Parse([]byte(cfgText), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		maxBatch int
		want     []int
	}{
		{500, []int{200, 400, 500, 500}},
		{0, []int{200, 400, 800, 1600, 2000, 2000}},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := &fakeStore{left: 2 * len(tt.want), pace: store.SweepPace{MaxBatch: tt.maxBatch}}
			o := &observed{removed: map[string]int{}, passes: map[string]int{}}
			s := retention.New(f, func() *config.Config { return cfg }, o, slog.New(slog.DiscardHandler), retention.Options{})
			if _, err := s.Pass(context.Background()); err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range f.requests {
				got = append(got, r.Batch)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("store MaxBatch %d: batches %v, want %v", tt.maxBatch, got, tt.want)
			}
		})
	}
}

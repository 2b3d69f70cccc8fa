package save_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/store"
)

// updatesConfig has one client of full results with an EHR that takes
// results-updated, a CRM of identity data, a lab that does not take
// updates, and an app that takes them in no order.
const updatesConfig = `
clients:
  - id: acme
    apiKeys: [{key: acme-test-key-0123456789}]
    subscription: full
    funnels: [{id: acme-main}]
    destinations:
      - {id: ehr, type: webhook, url: "https://ehr.acme.example/hook", events: [sensitive, results-updated]}
      - {id: crm, type: webhook, url: "https://crm.acme.example/hook", events: [non-sensitive]}
      - {id: lab, type: webhook, url: "https://lab.acme.example/hook", events: [sensitive]}
      - {id: app, type: webhook, url: "https://app.acme.example/hook", events: [sensitive, results-updated], ordering: none}
`

// deliveredStore is a fakeStore that knows each destination's latest
// delivery of the record's results, and counts how often a save asked.
type deliveredStore struct {
	*fakeStore
	latest map[string]store.ResultsDelivery
	asked  int
}

func (d *deliveredStore) LatestResults(ctx context.Context, key record.Key) (map[string]store.ResultsDelivery, error) {
	d.asked++
	return d.latest, nil
}

func sent(state string, ids ...string) map[string]store.ResultsDelivery {
	out := map[string]store.ResultsDelivery{}
	for _, id := range ids {
		out[id] = store.ResultsDelivery{MessageID: "msg_" + id, State: state}
	}
	return out
}

type snapshotted struct {
	dt      record.DataType
	updates map[string]string
}

// updatesService saves into st with the config above, and records what
// it snapshots and the clients its red flags are counted for.
func updatesService(t *testing.T, st *deliveredStore) (*save.Service, *[]snapshotted, *[]string) {
	t.Helper()
	cfg, err := config.Parse([]byte(updatesConfig), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var snaps []snapshotted
	var flags []string
	snap := func(dt record.DataType, rec record.Record, updates map[string]string) ([]byte, string, error) {
		snaps = append(snaps, snapshotted{dt, updates})
		return []byte(`{}`), "test-model", nil
	}
	s := save.New(save.Deps{Store: st, Config: func() *config.Config { return cfg }, Snapshot: snap,
		RedFlag: func(client string) { flags = append(flags, client) }})
	return s, &snaps, &flags
}

// healthy are the measurements of a completed assessment of an adult.
func healthy() record.Fields {
	return record.Fields{Age: new(40.0), BiologicalSex: new("female"), HeartRateBpm: new(72.0), SystolicBloodPressureMmhg: new(118.0),
		DiastolicBloodPressureMmhg: new(76.0), BreathingRateBpm: new(14.0), Oxygen: new(98.0), HeartRateVariabilityMs: new(45.0),
		FormCompleted: new(true), AssessmentCompleted: new(true)}
}

func TestALaterSaveThatChangesDeliveredResultsRaisesResultsUpdated(t *testing.T) {
	t.Parallel()
	delivered := sent(store.Delivered, "ehr", "lab", "app")
	pending := sent(store.Pending, "ehr", "app")
	tests := []struct {
		name   string
		first  bool // the save completes the assessment
		latest map[string]store.ResultsDelivery
		change record.Fields
		// raised: a results-updated event; to: its destinations; asked:
		// the save read the record's latest deliveries of results.
		raised, redFlag, asked bool
		to                     []string
	}{
		{name: "the first completion raises the sensitive event only", first: true, latest: delivered, change: healthy()},
		{name: "a later save that changes nothing", latest: delivered, change: record.Fields{FirstName: new("Ada"), HeartRateBpm: new(72.0)}},
		{name: "a new red flag after delivery", latest: delivered, change: record.Fields{HeartRateBpm: new(150.0)},
			raised: true, redFlag: true, asked: true, to: []string{"ehr", "app"}},
		{name: "a changed score without a red flag", latest: delivered, change: record.Fields{SystolicBloodPressureMmhg: new(135.0)},
			raised: true, asked: true, to: []string{"ehr", "app"}},
		{name: "while the results are on their way: named, to go after them", latest: pending,
			change: record.Fields{HeartRateBpm: new(150.0)}, raised: true, redFlag: true, asked: true, to: []string{"ehr", "app"}},
		// The store names no delivery that failed for good: a destination
		// without one on record is sent the update naming none.
		{name: "after the results failed for good (none on record): sent, naming none", latest: map[string]store.ResultsDelivery{},
			change: record.Fields{Oxygen: new(84.0)}, raised: true, redFlag: true, asked: true, to: []string{"ehr", "app"}},
		{name: "results delivered to one destination, not (or no longer) on record for the other", latest: sent(store.Delivered, "ehr"),
			change: record.Fields{Oxygen: new(84.0)}, raised: true, redFlag: true, asked: true, to: []string{"ehr", "app"}},
		{name: "results sent only to a destination without updates", latest: sent(store.Delivered, "lab"),
			change: record.Fields{Oxygen: new(84.0)}, raised: true, redFlag: true, asked: true, to: []string{"ehr", "app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := &deliveredStore{fakeStore: &fakeStore{}, latest: tt.latest}
			s, snaps, flags := updatesService(t, st)
			ctx := context.Background()
			if !tt.first {
				if _, err := s.Save(ctx, "acme", request("acme-main", healthy())); err != nil {
					t.Fatal(err)
				}
				*snaps = nil
			}
			res, err := s.Save(ctx, "acme", request("acme-main", tt.change))
			if err != nil {
				t.Fatal(err)
			}
			c := st.commits[len(st.commits)-1]
			var update *store.NewEvent
			for i, e := range c.Events {
				if e.DataType == record.ResultsUpdated {
					update = &c.Events[i]
				}
			}
			if got := slices.Contains(res.Raised, record.ResultsUpdated); got != tt.raised || (update != nil) != tt.raised {
				t.Fatalf("raised %v, events %+v; want results-updated %v", res.Raised, c.Events, tt.raised)
			}
			if tt.first && !slices.Equal(res.Raised, []record.DataType{record.NonSensitive, record.Sensitive}) {
				t.Fatalf("the first completion raised %v", res.Raised)
			}
			if (st.asked > 0) != tt.asked {
				t.Fatalf("asked the store %d times, want a read %v", st.asked, tt.asked)
			}
			if (len(*flags) > 0) != tt.redFlag || tt.redFlag && !slices.Equal(*flags, []string{"acme"}) {
				t.Fatalf("red flags counted for %v, want %v", *flags, tt.redFlag)
			}
			if !tt.raised {
				return
			}
			if !slices.Equal(update.Destinations, tt.to) || update.Model != "test-model" || !update.Snapshot {
				t.Fatalf("results-updated event %+v, want destinations %v", update, tt.to)
			}
			want := map[string]string{}
			for _, id := range tt.to {
				if last, ok := tt.latest[id]; ok {
					want[id] = last.MessageID
				}
			}
			last := (*snaps)[len(*snaps)-1]
			if last.dt != record.ResultsUpdated || !maps.Equal(last.updates, want) {
				t.Fatalf("snapshot %+v, want the message ids %v", last, want)
			}
		})
	}
}

// A client without full results never raises results-updated, and the
// save reads nothing more for it.
func TestAClientWithoutResultsNeverReadsDeliveredResults(t *testing.T) {
	t.Parallel()
	st := &deliveredStore{fakeStore: &fakeStore{}, latest: sent(store.Delivered, "x")}
	s := service(t, st, nil)
	for range 2 {
		f := healthy()
		f.HeartRateBpm = new(60.0 + float64(len(st.commits))*80)
		if _, err := s.Save(context.Background(), "globex", request("globex-main", f)); err != nil {
			t.Fatal(err)
		}
	}
	if st.asked != 0 {
		t.Fatalf("asked %d times", st.asked)
	}
}

package storetest

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var updateTests = []test{
	{"AResultsUpdatedEventIsStoredClaimedListedAndErased", testResultsUpdated},
}

// testResultsUpdated: DeliveredResults names, by destination, the last
// delivery of a record's results that reached delivered (none before);
// an event of type results-updated commits with its own destinations,
// is claimed and listed under its type, and once delivered is what
// DeliveredResults names; an erasure takes it with the rest.
func testResultsUpdated(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	key := record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"}
	delivered := func(want map[string]string) {
		t.Helper()
		got, err := h.DeliveredResults(ctx, key)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("DeliveredResults = %v, %v; want %v", got, err, want)
		}
	}
	delivered(map[string]string{}) // no such record yet
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true),
		HeartRateBpm: new(72.0)}))
	delivered(map[string]string{})

	now := time.Now()
	var first []store.Claimed // identity first, then results (per-record order)
	for range 2 {
		for _, c := range claim(t, h, "p1", now.Add(time.Second)) {
			state := store.Delivered
			if c.DataType == record.Sensitive && c.Destination == "d2" {
				state = store.Failed // d2 never got the results
			}
			finish(t, h, c, "p1", state, time.Time{})
			first = append(first, c)
		}
	}
	sensitive := byEvent(first, record.Sensitive)
	delivered(map[string]string{"d1": sensitive["d1"].MessageID})

	prev, err := h.Find(ctx, store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuidA})
	if err != nil || prev == nil {
		t.Fatalf("Find = %v, %v", prev, err)
	}
	rec := prev.Record
	rec.Fields.HeartRateBpm, rec.UpdatedAt = new(150.0), rec.UpdatedAt.Add(time.Minute)
	snap := []byte(`{"v":1,"updates":{"d1":"` + sensitive["d1"].MessageID + `"}}`)
	done, err := h.Commit(ctx, store.Commit{Lookup: store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuidA},
		Previous: prev, Record: rec, Destinations: []string{"d1", "d2"},
		Events: []store.NewEvent{{DataType: record.ResultsUpdated, Model: "pads-score-3", Payload: snap, Snapshot: true, Destinations: []string{"d1"}}}})
	if err != nil || done.Deliveries != 1 || len(done.Events) != 1 || done.Events[0].DataType != record.ResultsUpdated {
		t.Fatalf("commit of a results-updated event = %+v, %v", done, err)
	}
	got := claim(t, h, "p1", now.Add(2*time.Minute)) // due at the save, a minute on
	if len(got) != 1 || got[0].DataType != record.ResultsUpdated || got[0].Destination != "d1" || !got[0].Snapshot ||
		string(got[0].Payload) != string(snap) || got[0].Model != "pads-score-3" {
		t.Fatalf("claimed %s, want the results-updated delivery to d1 with its snapshot", describe(got))
	}
	listed, err := h.Deliveries(ctx, store.DeliveryFilter{ClientID: "acme"})
	if err != nil || len(listed) != 5 || listed[0].DataType != record.ResultsUpdated || listed[0].State != store.Pending {
		t.Fatalf("listed %+v, %v; want the results-updated delivery first, pending", listed, err)
	}
	delivered(map[string]string{"d1": sensitive["d1"].MessageID}) // still on its way
	finish(t, h, got[0], "p1", store.Delivered, time.Time{})
	delivered(map[string]string{"d1": got[0].MessageID})

	erased, err := h.Erase(ctx, store.Patient{ClientID: "acme", PatientUUID: uuidA})
	if err != nil || erased.Events != 3 || erased.Deliveries != 5 {
		t.Fatalf("Erase = %+v, %v; want 3 events and 5 deliveries", erased, err)
	}
	delivered(map[string]string{})
}

package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var updateTests = []test{
	{"AResultsUpdatedEventIsStoredClaimedListedAndErased", testResultsUpdated},
}

// testResultsUpdated: LatestResults names, by destination, the latest
// delivery of a record's results that did not fail for good, in its
// state (none before); an event of
// type results-updated commits with its own destinations, is claimed and
// listed under its type, and is then what LatestResults names;
// MessageState follows each delivery; an erasure takes it with the rest.
func testResultsUpdated(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	key := record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"}
	latest := func(want map[string]store.ResultsDelivery) {
		t.Helper()
		got, err := h.LatestResults(ctx, key)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("LatestResults = %v, %v; want %v", got, err, want)
		}
	}
	state := func(id, want string) {
		t.Helper()
		if got, err := h.MessageState(ctx, id); err != nil || got != want {
			t.Fatalf("MessageState(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	latest(map[string]store.ResultsDelivery{}) // no such record yet
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true),
		HeartRateBpm: new(72.0)}))

	now := time.Now()
	var first []store.Claimed // identity first, then results (per-record order)
	for range 2 {
		for _, c := range claim(t, h, "p1", now.Add(time.Second)) {
			st := store.Delivered
			if c.DataType == record.Sensitive && c.Destination == "d2" {
				st = store.Failed // d2 never got the results
			}
			finish(t, h, c, "p1", st, time.Time{})
			first = append(first, c)
		}
	}
	sensitive := byEvent(first, record.Sensitive)
	d1, d2 := sensitive["d1"].MessageID, sensitive["d2"].MessageID
	// d2's failed for good: not a message d2 has, so not one to name.
	latest(map[string]store.ResultsDelivery{"d1": {MessageID: d1, State: store.Delivered}})
	state(d1, store.Delivered)
	state(d2, store.Failed)
	if _, err := h.MessageState(ctx, "msg_00000000000000000000000000000000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("MessageState of no delivery: %v, want ErrNotFound", err)
	}

	prev, err := h.Find(ctx, store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuidA})
	if err != nil || prev == nil {
		t.Fatalf("Find = %v, %v", prev, err)
	}
	rec := prev.Record
	rec.Fields.HeartRateBpm, rec.UpdatedAt = new(150.0), rec.UpdatedAt.Add(time.Minute)
	snap := []byte(`{"v":1,"updates":{"d1":"` + d1 + `"}}`)
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
	update := got[0].MessageID
	latest(map[string]store.ResultsDelivery{"d1": {MessageID: update, State: store.Pending}})
	finish(t, h, got[0], "p1", store.Delivered, time.Time{})
	latest(map[string]store.ResultsDelivery{"d1": {MessageID: update, State: store.Delivered}})

	erased, err := h.Erase(ctx, store.Patient{ClientID: "acme", PatientUUID: uuidA})
	if err != nil || erased.Events != 3 || erased.Deliveries != 5 {
		t.Fatalf("Erase = %+v, %v; want 3 events and 5 deliveries", erased, err)
	}
	latest(map[string]store.ResultsDelivery{})
	if _, err := h.MessageState(ctx, update); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("MessageState of an erased delivery: %v, want ErrNotFound", err)
	}
}

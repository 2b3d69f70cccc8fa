package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

// UpgradeToResultsUpdated checks the migration that lets results-updated
// in, on a database from before it. open opens the store under test
// (migrating it to the current version); exec runs a statement on the
// same database beside the store; revert is the SQL that puts the schema
// back as it was before that migration. The database is filled with what
// one from before results-updated holds (a record of acme whose form and
// assessment raised both events, with their deliveries to d1 and d2, some
// delivered), reverted (the old schema must refuse a results-updated
// event) and opened again: every delivery must still be there as it was,
// and a results-updated event must commit. The store stays open until t
// ends.
func UpgradeToResultsUpdated(t *testing.T, open func() (store.Store, error), exec func(sql string) error, revert string) {
	t.Helper()
	ctx := context.Background()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{Store: s, saves: Saves(t, s)}
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true),
		HeartRateBpm: new(72.0)}))
	for range 2 { // identity, then results (per-record order)
		for _, c := range claim(t, s, "p1", time.Now().Add(time.Second)) {
			finish(t, s, c, "p1", store.Delivered, time.Time{})
		}
	}
	before, err := s.Deliveries(ctx, store.DeliveryFilter{ClientID: "acme"})
	if err != nil || len(before) != 4 {
		t.Fatalf("deliveries before the upgrade: %d, %v", len(before), err)
	}
	s.Close()

	if err := exec(revert); err != nil {
		t.Fatalf("put the schema back: %v", err)
	}
	if err := exec(`UPDATE events SET data_type = 'results-updated'`); err == nil {
		t.Fatal("the old schema took results-updated")
	}

	if s, err = open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	after, err := s.Deliveries(ctx, store.DeliveryFilter{ClientID: "acme"})
	if err != nil || !slices.EqualFunc(before, after, func(a, b store.Delivery) bool {
		return a.ID == b.ID && a.MessageID == b.MessageID && a.DataType == b.DataType && a.State == b.State && a.EventID == b.EventID
	}) {
		t.Fatalf("deliveries after the upgrade %+v, %v; want %+v", after, err, before)
	}
	key := record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"}
	if got, err := s.LatestResults(ctx, key); err != nil || len(got) != 2 {
		t.Fatalf("LatestResults after the upgrade = %v, %v", got, err)
	}
	commitUpdate(t, s, uuidA, time.Now().UTC())
}

// commitUpdate commits a results-updated event of acme's record uuid, at
// at, to d1, with a snapshot that names the patient (so that a scan of
// the files would find it unsealed).
func commitUpdate(t *testing.T, s store.Store, uuid string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	lookup := store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuid}
	prev, err := s.Find(ctx, lookup)
	if err != nil || prev == nil {
		t.Fatalf("Find = %v, %v", prev, err)
	}
	rec := prev.Record
	rec.UpdatedAt = at
	snap := `{"v":1,"record":{"uuid":"` + uuid + `","heartRateBpm":150},"updates":{"d1":"msg_0123456789abcdef0123456789abcdef"}}`
	done, err := s.Commit(ctx, store.Commit{Lookup: lookup, Previous: prev, Record: rec, Events: []store.NewEvent{{
		DataType: record.ResultsUpdated, Model: "m", Payload: []byte(snap), Snapshot: true, Destinations: []string{"d1"}}}})
	if err != nil || done.Deliveries != 1 {
		t.Fatalf("commit of a results-updated event: %+v, %v", done, err)
	}
}

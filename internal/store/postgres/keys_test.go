package postgres

import (
	"context"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestASaveThroughAnotherProcessUpdatesTheRecord: two pads processes on
// one database, each with its own filter of record keys. A record that
// one creates after the other started is unknown to the other's filter,
// which says no: the other's save of that patient meets the key's unique
// index (a conflict, nothing written), learns the key, and updates the
// record from a fresh read. It neither fails nor creates a second record.
func TestASaveThroughAnotherProcessUpdatesTheRecord(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	ctx := context.Background()
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	a, err := Open(ctx, dbURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, dbURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	<-a.keys.Filled()
	<-b.keys.Filled()
	uuid := "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"
	key := record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"}
	if res, err := storetest.Saves(t, a).Save(ctx, "acme", storetest.Request("acme", uuid, "ada@example.com", record.Fields{})); err != nil || !res.Created {
		t.Fatalf("the first save through a: created %v, %v", res.Created, err)
	}
	if !b.keys.Absent(key) {
		t.Fatal("b's filter knew of a record it was not told of: the test proves nothing")
	}
	res, err := storetest.Saves(t, b).Save(ctx, "acme", storetest.Request("acme", uuid, "ada@example.com", record.Fields{FirstName: new("Ada")}))
	if err != nil || res.Created {
		t.Fatalf("the save through b: created %v, %v; want an update", res.Created, err)
	}
	got, err := a.Get(ctx, key)
	if err != nil || got.Fields.FirstName == nil || *got.Fields.FirstName != "Ada" {
		t.Fatalf("the record after b's save: %+v, %v", got, err)
	}
	if b.keys.Absent(key) {
		t.Fatal("b's filter did not learn the key from the conflict")
	}
}

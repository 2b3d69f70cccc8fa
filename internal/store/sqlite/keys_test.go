package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// waitReady waits for s's filter to be filled from the database.
func waitReady(t *testing.T, s *Store) {
	t.Helper()
	<-s.keys.Filled()
}

// TestTheKeyFilterKnowsTheStoredRecordsAtStart: reopened, the store's
// filter says maybe of the records stored before, so their saves update
// them.
func TestTheKeyFilterKnowsTheStoredRecordsAtStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pads.db")
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	s, err := Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	saves := storetest.Saves(t, s)
	uuid := "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"
	if _, err := saves.Save(context.Background(), "acme", storetest.Request("acme", uuid, "ada@example.com", record.Fields{})); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitReady(t, s)
	if s.keys.Absent(record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"}) {
		t.Fatal("the filter says a record stored before the start is absent")
	}
	res, err := storetest.Saves(t, s).Save(context.Background(), "acme", storetest.Request("acme", uuid, "ada@example.com",
		record.Fields{FirstName: new("Ada")}))
	if err != nil || res.Created {
		t.Fatalf("a save of the stored patient after the start: created %v, %v; want an update", res.Created, err)
	}
}

// TestASaveUpdatesARecordTheKeyFilterDidNotKnow: when the filter wrongly
// says no (a record it was not told of), the save's create meets the
// record key's unique index, and the save starts over from a read that
// finds the record: it updates it, it does not fail or duplicate it.
func TestASaveUpdatesARecordTheKeyFilterDidNotKnow(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(t, s)
	uuid := "0b6c3a52-8f1e-4f63-a1d2-9c0e7b4a5d6f"
	if _, err := saves.Save(context.Background(), "acme", storetest.Request("acme", uuid, "bob@example.com", record.Fields{})); err != nil {
		t.Fatal(err)
	}
	waitReady(t, s)
	forgetful := sqlstore.NewKeys(1000) // knows no record
	forgetful.MarkReady()
	s.keys = forgetful
	res, err := saves.Save(context.Background(), "acme", storetest.Request("acme", uuid, "bob@example.com", record.Fields{FirstName: new("Bob")}))
	if err != nil || res.Created {
		t.Fatalf("a save the filter wrongly took for a new patient: created %v, %v; want an update", res.Created, err)
	}
	got, err := s.Get(context.Background(), record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"})
	if err != nil || got.Fields.FirstName == nil || *got.Fields.FirstName != "Bob" {
		t.Fatalf("the record after the save: %+v, %v", got, err)
	}
	if s.keys.Absent(record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"}) {
		t.Fatal("the conflict did not teach the filter the key")
	}
}

package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var commitTests = []test{
	{"CommitRefusesAStaleVersion", testStaleVersion},
	{"CommitRefusesACreateOfAnExistingKey", testCreateOfExistingKey},
	{"CommitByEmailRefusesWhenTheEmailFindsAnotherRecord", testEmailConflict},
	{"VersionsMoveOnWithEachWrite", testVersions},
}

// commitOf applies a save of f to what lookup finds, as the save service
// does, and returns the commit without running it.
func commitOf(t *testing.T, h *harness, l store.Lookup, f record.Fields) store.Commit {
	t.Helper()
	prev, err := h.Find(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	var stored *record.Record
	if prev != nil {
		stored = &prev.Record
	}
	f.Email = new(l.Email)
	c := record.Apply(stored, record.Save{ClientID: l.ClientID, AssessmentType: l.AssessmentType, PatientUUID: l.PatientUUID,
		Email: l.Email, FunnelID: l.ClientID + "-main", Patch: record.Patch{Values: f}}, time.Now().UTC(), uuidB)
	return store.Commit{Lookup: l, Previous: prev, Record: c.Record}
}

func byKey(uuid string) store.Lookup {
	return store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuid, Email: "ada@example.com"}
}

func byEmail() store.Lookup {
	return store.Lookup{ClientID: "acme", AssessmentType: "faceScan", Email: "ada@example.com"}
}

func commit(h *harness, c store.Commit) error {
	_, err := h.Commit(context.Background(), c)
	return err
}

func testStaleVersion(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{City: new("London")}))
	stale := commitOf(t, h, byKey(uuidA), record.Fields{City: new("Paris")})
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{State: new("LDN")}))
	if err := commit(h, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("commit over a record changed since it was read: %v, want ErrConflict", err)
	}
	if f := h.get(t, "acme", uuidA).Fields; *f.City != "London" || *f.State != "LDN" {
		t.Fatalf("a refused commit wrote: %+v", f)
	}
	if err := commit(h, commitOf(t, h, byKey(uuidA), record.Fields{City: new("Paris")})); err != nil {
		t.Fatalf("commit after reading again: %v", err)
	}
}

func testCreateOfExistingKey(t *testing.T, o Opener) {
	h := open(t, o)
	create := commitOf(t, h, byKey(uuidA), record.Fields{City: new("Paris")})
	create.Events = []store.NewEvent{{DataType: record.NonSensitive, Model: "m", Payload: []byte(`{}`)}}
	create.Destinations = []string{"d1"}
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{City: new("London")}))
	if err := commit(h, create); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("create of a key created meanwhile: %v, want ErrConflict", err)
	}
	if ds, _ := h.Deliveries(context.Background(), store.DeliveryFilter{}); len(ds) != 0 {
		t.Fatalf("a refused commit enqueued %d deliveries", len(ds))
	}
	if f := h.get(t, "acme", uuidA).Fields; *f.City != "London" {
		t.Fatalf("a refused create overwrote the record: %+v", f)
	}
}

func testEmailConflict(t *testing.T, o Opener) {
	h := open(t, o)
	// Nothing had the email when read; a record with it was made meanwhile.
	create := commitOf(t, h, byEmail(), record.Fields{City: new("Paris")})
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{}))
	if err := commit(h, create); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("email-only create after the email was taken: %v, want ErrConflict", err)
	}
	// The email found uuidA; then a newer record took the email over.
	update := commitOf(t, h, byEmail(), record.Fields{City: new("Paris")})
	time.Sleep(2 * time.Millisecond)
	h.save(t, "acme", req("acme", "0f000000-0000-4000-8000-000000000001", "ada@example.com", record.Fields{}))
	if err := commit(h, update); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("email update after a newer record took the email: %v, want ErrConflict", err)
	}
	if f := h.get(t, "acme", uuidA).Fields; f.City != nil {
		t.Fatalf("a refused commit wrote: %+v", f)
	}
}

func testVersions(t *testing.T, o Opener) {
	h := open(t, o)
	ctx := context.Background()
	var versions []int64
	for range 3 {
		h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{}))
		st, err := h.Find(ctx, byKey(uuidA))
		if err != nil || st == nil {
			t.Fatalf("Find = %v, %v", st, err)
		}
		versions = append(versions, st.Version)
	}
	if versions[1] != versions[0]+1 || versions[2] != versions[1]+1 {
		t.Fatalf("versions %v, want one more per write", versions)
	}
	if st, err := h.Find(ctx, byKey(uuidB)); st != nil || err != nil {
		t.Fatalf("Find of no record = %v, %v", st, err)
	}
}

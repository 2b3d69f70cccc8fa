package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var snapshotTests = []test{
	{"ASnapshotEventClaimsExportsResealsAndSweeps", testSnapshotEvent},
}

// commitEvent commits a new record of acme with uuid and one
// non-sensitive event e, to destination d1.
func commitEvent(t *testing.T, h *harness, uuid string, e store.NewEvent) {
	t.Helper()
	now := time.Now().UTC()
	k := record.Key{ClientID: "acme", PatientUUID: uuid, AssessmentType: "faceScan"}
	rec := record.Record{Key: k, FunnelID: "acme-main", Fields: record.Fields{FormCompleted: new(true)},
		CreatedAt: now, UpdatedAt: now, FormCompletedAt: now}
	if _, err := h.Commit(context.Background(), store.Commit{Lookup: store.Lookup{ClientID: "acme", AssessmentType: "faceScan",
		PatientUUID: uuid}, Record: rec, Events: []store.NewEvent{e}, Destinations: []string{"d1"}}); err != nil {
		t.Fatal(err)
	}
}

// testSnapshotEvent: an event committed with its snapshot (not a body)
// comes back as that snapshot, marked so, from a claim and an export;
// an event stored the older way, beside it, still comes back with its
// payload and Bundle; a reseal rewrites the snapshot under the new key
// and it still opens; the retention sweep removes it like a body.
func testSnapshotEvent(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o, "e1")
	snap := `{"v":1,"record":{"uuid":"` + uuidA + `"}}`
	commitEvent(t, h, uuidA, store.NewEvent{DataType: record.NonSensitive, Model: "pads-score-3", Payload: []byte(snap), Snapshot: true})
	old, bundle := `{"uuid":"`+uuidB+`"}`, `{"resourceType":"Bundle"}`
	commitEvent(t, h, uuidB, store.NewEvent{DataType: record.NonSensitive, Model: "pads-score-2", Payload: []byte(old), FHIR: []byte(bundle)})

	got := claim(t, h, "p1", time.Now().Add(time.Second))
	if len(got) != 2 {
		t.Fatalf("claimed %d, want 2", len(got))
	}
	for _, c := range got {
		want := store.Claimed{Payload: []byte(snap), Snapshot: true}
		if c.Key.PatientUUID == uuidB {
			want = store.Claimed{Payload: []byte(old), FHIR: []byte(bundle)}
		}
		if c.Unreadable || c.Snapshot != want.Snapshot || string(c.Payload) != string(want.Payload) || string(c.FHIR) != string(want.FHIR) {
			t.Fatalf("claimed %s: snapshot %v payload %s fhir %s", c.Key.PatientUUID, c.Snapshot, c.Payload, c.FHIR)
		}
	}
	exported := func(h *harness) store.ExportedEvent {
		t.Helper()
		recs := export(t, h, store.Patient{ClientID: "acme", PatientUUID: uuidA})
		if len(recs) != 1 || len(recs[0].Events) != 1 {
			t.Fatalf("export: %+v", recs)
		}
		return recs[0].Events[0]
	}
	if e := exported(h); !e.Snapshot || string(e.Payload) != snap || e.FHIR != nil || e.Model != "pads-score-3" {
		t.Fatalf("exported: snapshot %v payload %s fhir %s model %s", e.Snapshot, e.Payload, e.FHIR, e.Model)
	}
	h.Close()

	rotated := open(t, o, "e2", "e1")
	rep, err := rotated.Reseal(ctx)
	if err != nil || rep.Payloads.Rewritten != 2 {
		t.Fatalf("Reseal = %+v, %v; want both events rewritten", rep, err)
	}
	rotated.Close()
	only := open(t, o, "e2") // e1 is retired: what opens was resealed
	if e := exported(only); !e.Snapshot || string(e.Payload) != snap {
		t.Fatalf("after the reseal: snapshot %v payload %s", e.Snapshot, e.Payload)
	}

	t0 := time.Now().Add(2 * time.Minute) // past the first claim's lease
	finishAll(t, only, t0, store.Delivered)
	if n := sweepAt(t, only, t0.Add(2*time.Hour), store.Retention{Bodies: time.Hour, Deliveries: 24 * time.Hour}); n.Bodies != 2 {
		t.Fatalf("swept %+v, want the 2 bodies (a snapshot is one)", n)
	}
	if e := exported(only); e.Payload != nil || e.FHIR != nil {
		t.Fatalf("the snapshot outlived the sweep: %s", e.Payload)
	}
}

package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var fhirTests = []test{
	{"AClaimReturnsTheEventsFHIRBundle", testClaimReturnsFHIR},
	{"AnEventWithoutABundleClaimsWithNone", testClaimWithoutFHIR},
}

// testClaimReturnsFHIR: the FHIR Bundle made at the save is sealed with
// the event and comes back, opened, with every claim of its deliveries,
// beside the seed payload.
func testClaimReturnsFHIR(t *testing.T, o Opener) {
	h := open(t, o)
	res := h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true), FirstName: new("Ada"),
		HeartRateBpm: new(62.0), AssessmentCompleted: new(true)}))
	if res.Deliveries != 4 {
		t.Fatalf("Deliveries = %d, want 4 (two events, two destinations)", res.Deliveries)
	}
	got := claim(t, h, "p1", time.Now().Add(time.Second))
	if len(got) != 2 { // the sensitive ones wait for the identity (per-record order)
		t.Fatalf("claimed %d", len(got))
	}
	for _, c := range got {
		var b struct {
			ResourceType, Type string
			Entry              []struct{ Resource struct{ ResourceType string } }
		}
		if err := json.Unmarshal(c.FHIR, &b); err != nil || b.ResourceType != "Bundle" || b.Type != "collection" ||
			len(b.Entry) != 1 || b.Entry[0].Resource.ResourceType != "Patient" {
			t.Fatalf("FHIR of %s delivery: %s (%v)", c.DataType, c.FHIR, err)
		}
		var p map[string]any
		if err := json.Unmarshal(c.Payload, &p); err != nil || p["uuid"] != uuidA {
			t.Fatalf("payload beside the bundle: %s", c.Payload)
		}
		if err := h.Finish(context.Background(), store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID,
			Series: 1, Number: 1, Owner: "p1", StartedAt: time.Now()}, State: store.Delivered}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range claim(t, h, "p1", time.Now().Add(time.Second)) {
		if c.DataType != record.Sensitive || !json.Valid(c.FHIR) || len(c.FHIR) <= len(got[0].FHIR) {
			t.Fatalf("sensitive delivery's bundle: %s", c.FHIR)
		}
	}
}

// testClaimWithoutFHIR: an event committed without a Bundle (as every
// event raised before pads made them) is claimed with FHIR nil.
func testClaimWithoutFHIR(t *testing.T, o Opener) {
	h := open(t, o)
	r := req("acme", uuidB, "bo@example.com", record.Fields{FormCompleted: new(true)})
	prev, err := h.Find(context.Background(), store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuidB})
	if err != nil || prev != nil {
		t.Fatalf("Find = %v, %v", prev, err)
	}
	now := time.Now().UTC()
	rec := record.Record{Key: record.Key{ClientID: "acme", PatientUUID: uuidB, AssessmentType: "faceScan"}, FunnelID: "acme-main",
		Fields: r.Patch.Values, CreatedAt: now, UpdatedAt: now, FormCompletedAt: now}
	if _, err := h.Commit(context.Background(), store.Commit{Lookup: store.Lookup{ClientID: "acme", AssessmentType: "faceScan", PatientUUID: uuidB},
		Record: rec, Events: []store.NewEvent{{DataType: record.NonSensitive, Model: "pads-score-2", Payload: []byte(`{"uuid":"` + uuidB + `"}`)}},
		Destinations: []string{"d1"}}); err != nil {
		t.Fatal(err)
	}
	got := claim(t, h, "p1", time.Now().Add(time.Second))
	if len(got) != 1 || got[0].FHIR != nil || string(got[0].Payload) != `{"uuid":"`+uuidB+`"}` {
		t.Fatalf("claimed %+v", got)
	}
}

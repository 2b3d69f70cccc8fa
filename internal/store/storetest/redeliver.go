package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var redeliverTests = []test{
	{"a patient saved without a destination gets its results delivered later, once", testDeliverPatient},
}

// testDeliverPatient: initech has no destination; its record's events are
// kept, and DeliverPatient enqueues one delivery per event to a
// destination named later, in event order; again, it enqueues nothing; to
// a destination that takes some event types, only events of those.
func testDeliverPatient(t *testing.T, o Opener) {
	h := open(t, o)
	rd, ok := h.Store.(store.Redeliverer)
	if !ok {
		t.Fatal("the store cannot deliver a patient's results again")
	}
	ctx := context.Background()
	uuid := h.save(t, "initech", req("initech", "", "ada@example.com", record.Fields{FormCompleted: new(true)})).PatientUUID
	h.save(t, "initech", req("initech", uuid, "ada@example.com", record.Fields{HeartRateBpm: new(72.0), AssessmentCompleted: new(true)}))
	if ds, _ := h.Deliveries(ctx, store.DeliveryFilter{ClientID: "initech"}); len(ds) != 0 {
		t.Fatalf("no destination, yet %d deliveries", len(ds))
	}
	r := store.PatientDelivery{ClientID: "initech", PatientUUID: uuid, Destination: "late", Funnels: []string{"initech-main"}, Now: time.Now()}
	got, err := rd.DeliverPatient(ctx, r)
	if err != nil || got != (store.Redelivered{Events: 2, Enqueued: 2}) {
		t.Fatalf("DeliverPatient = %+v, %v; want both events enqueued", got, err)
	}
	ds, _ := h.Deliveries(ctx, store.DeliveryFilter{ClientID: "initech", Limit: 10})
	if len(ds) != 2 || ds[0].Destination != "late" || ds[0].State != store.Pending || ds[1].DataType != record.NonSensitive || ds[0].DataType != record.Sensitive {
		t.Fatalf("deliveries (newest first) = %+v", ds)
	}
	if got, err := rd.DeliverPatient(ctx, r); err != nil || got != (store.Redelivered{Events: 2, Already: 2}) {
		t.Fatalf("again: %+v, %v; want nothing more", got, err)
	}
	crm := r
	crm.Destination, crm.Events = "crm", []string{string(record.NonSensitive)} // takes identity data only
	if got, err := rd.DeliverPatient(ctx, crm); err != nil || got != (store.Redelivered{Events: 1, Enqueued: 1}) {
		t.Fatalf("to a destination of identity data only: %+v, %v; want the non-sensitive event only", got, err)
	}
	other := r
	other.Funnels = []string{"initech-staging"} // another environment's funnels
	if got, err := rd.DeliverPatient(ctx, other); err != nil || got != (store.Redelivered{}) {
		t.Fatalf("through other funnels: %+v, %v; want nothing", got, err)
	}
	nobody := r
	nobody.PatientUUID = "00000000-0000-4000-8000-000000000001"
	if _, err := rd.DeliverPatient(ctx, nobody); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown patient: %v, want ErrNotFound", err)
	}
}

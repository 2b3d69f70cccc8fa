package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var lifecycleTests = []test{
	{"ErasureRemovesThePatientAndNothingElse", testErasure},
	{"ErasureByEmailTakesEveryAssessmentType", testErasureByEmail},
	{"ErasureCancelsAClaimedDelivery", testErasureCancelsClaimed},
	{"ErasureRacesSavesOfThePatient", testErasureRacesSaves},
	{"ExportHoldsTheRecordResultsAndDeliveries", testExport},
	{"SweepRemovesBodiesThenDeliveriesAndKeepsPending", testSweepDeliveries},
	{"SweepExpiresRecordsAndLoneEvents", testSweepRecords},
	{"ResealLeavesWhatRetentionRemovedRemoved", testResealAfterSweep},
}

// completed saves a completed assessment of patient uuid (acme, by email
// when uuid is ""): two events, each with a delivery to d1 and to d2.
func completed(t *testing.T, h *harness, uuid, email string) string {
	t.Helper()
	r := h.save(t, "acme", req("acme", uuid, email, record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true),
		FirstName: new("Ada"), HeartRateBpm: new(72.0)}))
	return r.PatientUUID
}

func erase(t *testing.T, h *harness, p store.Patient) store.Erased {
	t.Helper()
	n, err := h.Erase(context.Background(), p)
	if err != nil {
		t.Fatalf("Erase: %v", err)
	}
	return n
}

func export(t *testing.T, h *harness, p store.Patient) []store.PatientRecord {
	t.Helper()
	recs, err := h.Export(context.Background(), p)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	return recs
}

// finishAll claims every due delivery and finishes it in state, with a
// destination's answer, until none is left (a record's later delivery is
// due once its earlier one has ended).
func finishAll(t *testing.T, h *harness, now time.Time, state string) []store.Claimed {
	t.Helper()
	var all []store.Claimed
	for range 10 {
		got := finishDue(t, h, now, state)
		if len(got) == 0 {
			return all
		}
		all = append(all, got...)
	}
	return all
}

func finishDue(t *testing.T, h *harness, now time.Time, state string) []store.Claimed {
	t.Helper()
	got := claim(t, h, "p", now)
	for _, c := range got {
		f := store.Finished{State: state, Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: c.Series,
			Number: 1, Owner: "p", StartedAt: now, StatusCode: 200, Response: []byte(`{"ok":true}`)}}
		if state == store.Failed {
			f.StatusCode, f.ErrorClass = 500, "http_5xx"
		}
		if err := h.Finish(context.Background(), f); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func testErasure(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	completed(t, h, uuidA, "ada@example.com")
	completed(t, h, uuidB, "bob@example.com")
	finishAll(t, h, time.Now().Add(time.Second), store.Delivered)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{LastName: new("Lovelace")}))
	// The same uuid under another client is another patient.
	h.save(t, "initech", req("initech", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true)}))

	a := store.Patient{ClientID: "acme", PatientUUID: uuidA}
	n := erase(t, h, a)
	if n != (store.Erased{Records: 1, Events: 2, Deliveries: 4, Attempts: 4}) {
		t.Fatalf("erased %+v, want 1 record, 2 events, 4 deliveries, 4 attempts", n)
	}
	if _, err := h.Get(ctx, record.Key{ClientID: "acme", PatientUUID: uuidA, AssessmentType: "faceScan"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after erasure: %v", err)
	}
	if got, err := h.Find(ctx, store.Lookup{ClientID: "acme", AssessmentType: "faceScan", Email: "ada@example.com"}); err != nil || got != nil {
		t.Fatalf("the blind index still finds the erased record: %v, %v", got, err)
	}
	if recs := export(t, h, a); len(recs) != 0 {
		t.Fatalf("export after erasure: %d records", len(recs))
	}
	ds, err := h.Deliveries(ctx, store.DeliveryFilter{ClientID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Key.PatientUUID == uuidA {
			t.Fatalf("delivery %d of the erased patient is left", d.ID)
		}
	}
	if len(ds) != 4 {
		t.Fatalf("%d deliveries left, want bob's 4", len(ds))
	}
	h.get(t, "acme", uuidB)
	h.get(t, "initech", uuidA)
	if again := erase(t, h, a); again != (store.Erased{}) {
		t.Fatalf("a second erasure removed %+v", again)
	}
	if res := h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{})); !res.Created {
		t.Fatal("a save after erasure did not create a new record")
	}
}

func testErasureByEmail(t *testing.T, o Opener) {
	h := open(t, o)
	completed(t, h, uuidA, "ada@example.com")
	other := req("acme", "", "Ada@Example.com", record.Fields{})
	other.AssessmentType = "bodyScan"
	other.Patch.Values.AssessmentType = new("bodyScan")
	h.save(t, "acme", other)
	completed(t, h, uuidB, "bob@example.com")

	n := erase(t, h, store.Patient{ClientID: "acme", Email: "ada@example.com"})
	if n.Records != 2 || n.Cancelled != 4 || n.Deliveries != 4 {
		t.Fatalf("erased %+v, want both records of the email and their 4 pending deliveries", n)
	}
	if recs := export(t, h, store.Patient{ClientID: "acme", PatientUUID: uuidB}); len(recs) != 1 {
		t.Fatalf("bob: %d records", len(recs))
	}
}

func testErasureCancelsClaimed(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	completed(t, h, uuidA, "ada@example.com")
	now := time.Now().Add(time.Second)
	got := claim(t, h, "p", now)
	if len(got) == 0 {
		t.Fatal("nothing claimed")
	}
	c := got[0]
	if held, err := h.Held(ctx, "p", []int64{c.ID}); err != nil || len(held) != 1 {
		t.Fatalf("Held before erasure = %v, %v", held, err)
	}
	if n := erase(t, h, store.Patient{ClientID: "acme", PatientUUID: uuidA}); n.Cancelled != 4 {
		t.Fatalf("erased %+v, want its 4 pending deliveries (%d of them claimed) cancelled", n, len(got))
	}
	if held, err := h.Held(ctx, "p", []int64{c.ID}); err != nil || len(held) != 0 {
		t.Fatalf("Held after erasure = %v, %v: the attempt would start", held, err)
	}
	// The attempt in flight at the erasure ends: it is not recorded, and
	// nothing fails.
	err := h.Finish(ctx, store.Finished{State: store.Delivered, Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID,
		Series: c.Series, Number: 1, Owner: "p", StartedAt: now, StatusCode: 200, Response: []byte("ok")}})
	if err != nil {
		t.Fatalf("Finish of an erased delivery: %v", err)
	}
	if _, _, err := h.Delivery(ctx, c.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the erased delivery is back: %v", err)
	}
	if again := claim(t, h, "q", now.Add(time.Hour)); len(again) != 0 {
		t.Fatalf("erased deliveries claimed again: %d", len(again))
	}
	if n, err := h.Replay(ctx, store.ReplayRequest{ID: c.ID, Now: now}); n != 0 || (err != nil && !errors.Is(err, store.ErrNotFound)) {
		t.Fatalf("replay after erasure = %d, %v", n, err)
	}
}

// Saves of one patient race erasures of it: every erasure and save
// succeeds, and after the last erasure nothing of the patient is left (no
// event or delivery of a half-erased record).
func testErasureRacesSaves(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	a := store.Patient{ClientID: "acme", PatientUUID: uuidA}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 4 {
		wg.Go(func() {
			for i := range 15 {
				f := record.Fields{FormCompleted: new(i%2 == 0), AssessmentCompleted: new(g%2 == 0)}
				if _, err := h.saves.Save(ctx, "acme", req("acme", uuidA, "ada@example.com", f)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 15 {
			if _, err := h.Erase(ctx, a); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("save or erasure failed under the race: %v", err)
	}
	for _, r := range export(t, h, a) {
		for _, e := range r.Events {
			if len(e.Deliveries) != 2 {
				t.Fatalf("event %d has %d deliveries, want 2", e.ID, len(e.Deliveries))
			}
		}
	}
	erase(t, h, a)
	if recs := export(t, h, a); len(recs) != 0 {
		t.Fatalf("%d records left after the last erasure", len(recs))
	}
	if left := claim(t, h, "p", time.Now().Add(time.Hour)); len(left) != 0 {
		t.Fatalf("%d deliveries left after the last erasure", len(left))
	}
}

func testExport(t *testing.T, o Opener) {
	h := open(t, o)
	uuid := completed(t, h, "", "ada@example.com")
	now := time.Now().Add(time.Second)
	finishAll(t, h, now, store.Delivered)
	recs := export(t, h, store.Patient{ClientID: "acme", Email: "ADA@example.com"})
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Key.PatientUUID != uuid || r.Fields.FirstName == nil || *r.Fields.FirstName != "Ada" || r.Fields.Email == nil {
		t.Fatalf("record %+v", r.Record)
	}
	if len(r.Events) != 2 {
		t.Fatalf("%d events, want 2", len(r.Events))
	}
	for _, e := range r.Events {
		var body map[string]any
		if err := json.Unmarshal(e.Payload, &body); err != nil || body["uuid"] != uuid {
			t.Fatalf("event %d payload %s: %v", e.ID, e.Payload, err)
		}
		if e.Model == "" || e.CreatedAt.IsZero() || e.FHIR == nil {
			t.Fatalf("event %+v", e.Event)
		}
		if len(e.Deliveries) != 2 {
			t.Fatalf("event %d: %d deliveries", e.ID, len(e.Deliveries))
		}
		for _, d := range e.Deliveries {
			if d.State != store.Delivered || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 200 || d.Attempts[0].Response != nil {
				t.Fatalf("delivery %+v with attempts %+v", d.Delivery, d.Attempts)
			}
		}
	}
}

// sweepAt runs the sweep at now until it has nothing more to do.
func sweepAt(t *testing.T, h *harness, now time.Time, ret store.Retention) store.Swept {
	t.Helper()
	var total store.Swept
	for range 100 {
		got, err := h.Sweep(context.Background(), store.SweepRequest{Now: now, Batch: 3, Clients: []string{"acme", "globex", "initech"},
			Retention: func(string) store.Retention { return ret }})
		if err != nil {
			t.Fatalf("Sweep: %v", err)
		}
		total.Bodies += got.Bodies
		total.Deliveries += got.Deliveries
		total.Attempts += got.Attempts
		total.Events += got.Events
		total.Records += got.Records
		if !got.More {
			return total
		}
	}
	t.Fatal("the sweep never ended")
	return total
}

func testSweepDeliveries(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	delivered := store.Patient{ClientID: "acme", PatientUUID: uuidA}
	completed(t, h, uuidA, "ada@example.com")
	t0 := time.Now().Add(time.Second)
	got := finishAll(t, h, t0, store.Delivered)
	completed(t, h, uuidB, "bob@example.com") // stays pending
	ret := store.Retention{Bodies: time.Hour, Deliveries: 24 * time.Hour}

	if n := sweepAt(t, h, t0.Add(30*time.Minute), ret); n.Total() != 0 {
		t.Fatalf("swept %+v before anything expired", n)
	}
	// Past `bodies`: the delivered events lose their bodies and answers,
	// the metadata stays; a replay of one answers ErrBodyGone.
	if n := sweepAt(t, h, t0.Add(2*time.Hour), ret); n.Bodies != 2 || n.Deliveries != 0 {
		t.Fatalf("swept %+v past bodies, want the 2 bodies", n)
	}
	if clients, err := h.SweptClients(ctx); err != nil || len(clients) != 1 || clients[0] != "acme" {
		t.Fatalf("SweptClients = %v, %v; want acme, whose deliveries have finished", clients, err)
	}
	recs := export(t, h, delivered)
	for _, e := range recs[0].Events {
		if e.Payload != nil || e.FHIR != nil || len(e.Deliveries) != 2 {
			t.Fatalf("event %d after the bodies' expiry: payload %q, %d deliveries", e.ID, e.Payload, len(e.Deliveries))
		}
	}
	if _, attempts, err := h.Delivery(ctx, got[0].ID); err != nil || len(attempts) != 1 || attempts[0].Response != nil {
		t.Fatalf("attempts after the bodies' expiry: %+v, %v", attempts, err)
	}
	if _, err := h.Replay(ctx, store.ReplayRequest{ID: got[0].ID, Now: t0}); !errors.Is(err, store.ErrBodyGone) {
		t.Fatalf("replay of a body-less delivery: %v, want ErrBodyGone", err)
	}
	// Past `deliveries`: the deliveries, their attempts and their events go;
	// the record and the pending deliveries stay.
	if n := sweepAt(t, h, t0.Add(25*time.Hour), ret); n.Deliveries != 4 || n.Attempts != 4 || n.Events != 2 {
		t.Fatalf("swept %+v past deliveries, want 4 deliveries, 4 attempts, 2 events", n)
	}
	if recs := export(t, h, delivered); len(recs) != 1 || len(recs[0].Events) != 0 {
		t.Fatalf("after the deliveries' expiry: %+v", recs)
	}
	kept, err := h.PendingKept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, k := range kept {
		pending += k.Deliveries
	}
	if pending != 4 {
		t.Fatalf("pending kept %+v, want bob's 4", kept)
	}
}

// A failed delivery keeps its event's body for `deliveries` after its
// failure, replayable; records expire after `records` unless pending; the
// events no destination was to receive go after `deliveries`.
func testSweepRecords(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o)
	completed(t, h, uuidA, "ada@example.com")
	t0 := time.Now().Add(time.Second)
	failed := finishAll(t, h, t0, store.Failed)
	h.save(t, "globex", req("globex", uuidB, "bob@example.com", record.Fields{FormCompleted: new(true)}))
	ret := store.Retention{Bodies: time.Hour, Deliveries: 24 * time.Hour, Records: 48 * time.Hour}

	if n := sweepAt(t, h, t0.Add(2*time.Hour), ret); n.Bodies != 0 {
		t.Fatalf("swept %+v: a failed delivery's body went", n)
	}
	if n, err := h.Replay(ctx, store.ReplayRequest{ID: failed[0].ID, Now: t0.Add(2 * time.Hour)}); err != nil || n != 1 {
		t.Fatalf("replay of a failed delivery within `deliveries` = %d, %v", n, err)
	}
	// The replayed delivery is pending: its event and record stay past
	// `records`; the other three failed deliveries expired, with the
	// event they were all of; globex's record expired, with its lone event.
	n := sweepAt(t, h, t0.Add(72*time.Hour), ret)
	if n.Records != 1 || n.Deliveries != 3 || n.Events != 2 {
		t.Fatalf("swept %+v, want globex's record and lone event, and acme's 3 other failed deliveries and their event", n)
	}
	if recs := export(t, h, store.Patient{ClientID: "acme", PatientUUID: uuidA}); len(recs) != 1 {
		t.Fatal("the record with a pending delivery expired")
	}
	if recs := export(t, h, store.Patient{ClientID: "globex", PatientUUID: uuidB}); len(recs) != 0 {
		t.Fatal("globex's record did not expire")
	}
	if res := h.save(t, "globex", req("globex", uuidB, "bob@example.com", record.Fields{})); !res.Created {
		t.Fatal("a save after the record expired did not create a new one")
	}
}

// testResealAfterSweep: a reseal after the retention sweep removed the
// bodies and answers of delivered events rewrites the record and brings
// none of them back (and counts them nowhere).
func testResealAfterSweep(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o, "e1")
	completed(t, h, uuidA, "ada@example.com")
	t0 := time.Now().Add(time.Second)
	finishAll(t, h, t0, store.Delivered)
	if n := sweepAt(t, h, t0.Add(2*time.Hour), store.Retention{Bodies: time.Hour, Deliveries: 24 * time.Hour}); n.Bodies != 2 {
		t.Fatalf("swept %+v, want the 2 bodies", n)
	}
	h.Close()

	rotated := open(t, o, "e2", "e1")
	rep, err := rotated.Reseal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := store.ResealReport{Records: store.Resealed{Rewritten: 1, ByKey: map[string]int{"e2": 1}},
		Payloads: store.Resealed{ByKey: map[string]int{}}, Responses: store.Resealed{ByKey: map[string]int{}}}
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("Reseal = %+v, want %+v", rep, want)
	}
	for _, e := range export(t, rotated, store.Patient{ClientID: "acme", PatientUUID: uuidA})[0].Events {
		if e.Payload != nil || e.FHIR != nil {
			t.Fatalf("event %d has a body again after the reseal: %q", e.ID, e.Payload)
		}
		for _, d := range e.Deliveries {
			_, attempts, err := rotated.Delivery(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range attempts {
				if a.Response != nil {
					t.Fatalf("attempt of delivery %d has an answer again: %q", d.ID, a.Response)
				}
			}
		}
	}
}

// SweepRacesASave: a save of a record that has expired, under way (its
// transaction, begun by hold, has updated the record and holds its row)
// when the sweep marks that record, keeps it: the sweep waits for the save
// (waiting reports that it does), then finds the record saved since and
// leaves it, with everything of it. For stores with several writers at
// once (PostgreSQL); hold returns the save's commit.
func SweepRacesASave(t *testing.T, s store.Store, hold func(uuid string, savedAt time.Time) (commit func()), waiting func() bool) {
	h, _, now := expiredRecord(t, s, store.Delivered)
	commit := hold(uuidA, now)
	swept := sweepOnceWaiting(t, h, now, waiting)
	commit()
	if got := <-swept; got.Records != 0 {
		t.Fatalf("swept %+v: the record saved while the sweep waited for it expired", got)
	}
	recs := export(t, h, store.Patient{ClientID: "acme", PatientUUID: uuidA})
	if len(recs) != 1 || len(recs[0].Events) != 2 {
		t.Fatalf("after the race: %d records (want 1, with its 2 events)", len(recs))
	}
}

// SweepRacesAReplay: a replay of a record's failed delivery that commits
// while the sweep removes that expired record (the sweep waits on a lock
// hold takes on the attempts, after its mark, until waiting reports it)
// keeps its delivery pending: the sweep leaves the delivery, its event
// and its record. For stores with several writers at once (PostgreSQL).
func SweepRacesAReplay(t *testing.T, s store.Store, hold func() (release func()), waiting func() bool) {
	h, failed, now := expiredRecord(t, s, store.Failed)
	release := hold()
	swept := sweepOnceWaiting(t, h, now, waiting)
	if n, err := h.Replay(context.Background(), store.ReplayRequest{ID: failed[0].ID, Now: now}); err != nil || n != 1 {
		t.Fatalf("Replay = %d, %v; want 1", n, err)
	}
	release()
	if got := <-swept; got.Records != 0 {
		t.Fatalf("swept %+v: the record of a delivery replayed during the sweep expired", got)
	}
	left := claim(t, h, "p", now.Add(time.Minute))
	if len(left) != 1 || left[0].ID != failed[0].ID {
		t.Fatalf("after the race, %d deliveries due; want the replayed one, %d", len(left), failed[0].ID)
	}
}

// raceRetention expires records after 48 hours and keeps deliveries
// longer: in the races above only the record has expired.
var raceRetention = store.Retention{Bodies: 96 * time.Hour, Deliveries: 96 * time.Hour, Records: 48 * time.Hour}

// expiredRecord saves patient A's completed assessment, ends its
// deliveries in state, and returns a time at which, under raceRetention,
// its record has expired and its deliveries have not.
func expiredRecord(t *testing.T, s store.Store, state string) (*harness, []store.Claimed, time.Time) {
	h := &harness{Store: s, saves: Saves(t, s)}
	completed(t, h, uuidA, "ada@example.com")
	t0 := time.Now().Add(time.Second)
	ended := finishAll(t, h, t0, state)
	return h, ended, t0.Add(72 * time.Hour)
}

// sweepOnceWaiting starts one sweep at now under raceRetention and
// returns, once waiting reports that the sweep waits for a lock, what it
// will have removed.
func sweepOnceWaiting(t *testing.T, h *harness, now time.Time, waiting func() bool) <-chan store.Swept {
	swept := make(chan store.Swept, 1)
	go func() {
		got, err := h.Sweep(context.Background(), store.SweepRequest{Now: now, Batch: 10, Clients: []string{"acme"},
			Retention: func(string) store.Retention { return raceRetention }})
		if err != nil {
			t.Errorf("Sweep: %v", err)
		}
		swept <- got
	}()
	for !waiting() {
		time.Sleep(10 * time.Millisecond) // polling another process's state: no channel to wait on
	}
	return swept
}

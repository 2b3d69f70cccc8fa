package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
)

var recordTests = []test{
	{"CreateOrUpdateRules", testRules},
	{"MergeSemantics", testMerge},
	{"ClientScoping", testScoping},
	{"EmailMatchesCaseInsensitivelyMostRecentFirst", testEmailLookup},
	{"EmailChangeMovesTheLookup", testEmailChange},
	{"TriggersFireOnceAndWriteEvents", testTriggers},
	{"ConcurrentEmailOnlyCreatesMakeOneRecord", testConcurrentCreates},
	{"ConcurrentUpdatesLoseNoField", testConcurrentUpdates},
	{"SurvivesReopen", testReopen},
	{"KeyRotation", testKeyRotation},
	{"ResealRewritesOldRecords", testReseal},
	{"ResealRewritesPayloadsAndAnswers", testResealOutbox},
	{"APayloadOfARetiredKeyIsUnreadable", testUnreadablePayload},
	{"ClosedStoreRefusesSaves", testClosed},
	{"AuditLogKeepsEntriesNewestFirst", testAudit},
}

func testRules(t *testing.T, o Opener) {
	h := open(t, o)
	// Rule 2: a patientUUID with no record creates one.
	if res := h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{Age: new(36.0)})); !res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 2: %+v", res)
	}
	// Rule 1: the same key updates it.
	if res := h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{City: new("London")})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 1: %+v", res)
	}
	// Rule 3: no patientUUID, same email and assessment type: update it.
	if res := h.save(t, "acme", req("acme", "", "ada@example.com", record.Fields{State: new("LDN")})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 3: %+v", res)
	}
	// Rule 4: no patientUUID, unknown email: a new record with a new UUID.
	res := h.save(t, "acme", req("acme", "", "bob@example.com", record.Fields{}))
	if !res.Created || res.PatientUUID == "" || res.PatientUUID == uuidA {
		t.Fatalf("rule 4: %+v", res)
	}
	if got := h.get(t, "acme", res.PatientUUID).Fields.PatientUUID; got == nil || *got != res.PatientUUID {
		t.Fatalf("created record's patientUUID field = %v", got)
	}
	// Another assessment type is another record, even by email.
	other := req("acme", "", "ada@example.com", record.Fields{})
	other.AssessmentType, other.Patch.Values.AssessmentType = "voiceScan", new("voiceScan")
	if res := h.save(t, "acme", other); !res.Created {
		t.Fatalf("other assessment type: %+v", res)
	}
	rec := h.get(t, "acme", uuidA)
	want := record.Fields{AssessmentType: new("faceScan"), FunnelID: new("acme-main"), Email: new("ada@example.com"),
		PatientUUID: new(uuidA), Age: new(36.0), City: new("London"), State: new("LDN"),
		Latest: &record.Latest{Age: "age"}} // the age was given by a save: the record keeps which field gave it
	if !reflect.DeepEqual(rec.Fields, want) {
		t.Fatalf("fields = %+v, want %+v", rec.Fields, want)
	}
	if rec.CreatedAt.IsZero() || rec.UpdatedAt.Before(rec.CreatedAt) || rec.FunnelID != "acme-main" {
		t.Fatalf("record = %+v", rec)
	}
}

func testMerge(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FirstName: new("Ada"), City: new("London"), Age: new(36.0)}))
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{Age: new(37.0)}, "city"))
	f := h.get(t, "acme", uuidA).Fields
	if *f.FirstName != "Ada" || *f.Age != 37 {
		t.Fatalf("absent fields must keep, given ones overwrite: %+v", f)
	}
	if f.City != nil {
		t.Fatalf("null must clear: city = %q", *f.City)
	}
}

func testScoping(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FirstName: new("Ada")}))
	res := h.save(t, "globex", req("globex", uuidA, "ada@example.com", record.Fields{FirstName: new("Eve")}))
	if !res.Created {
		t.Fatal("another client's save with the same patientUUID must create its own record")
	}
	if res := h.save(t, "globex", req("globex", "", "ada@example.com", record.Fields{})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("globex's email lookup must find globex's record: %+v", res)
	}
	if got := h.get(t, "acme", uuidA).Fields.FirstName; *got != "Ada" {
		t.Fatalf("acme's record was changed by another client: %v", *got)
	}
	if _, err := h.Get(context.Background(), record.Key{ClientID: "initech", PatientUUID: uuidA, AssessmentType: "faceScan"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get for a client without the record: %v", err)
	}
	if res := h.save(t, "initech", req("initech", "", "ada@example.com", record.Fields{})); !res.Created || res.PatientUUID == uuidA {
		t.Fatalf("an email lookup must never find another client's record: %+v", res)
	}
}

func testEmailLookup(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "Ada@Example.com", record.Fields{}))
	h.save(t, "acme", req("acme", uuidB, "ada@example.com", record.Fields{}))
	time.Sleep(2 * time.Millisecond)
	h.save(t, "acme", req("acme", uuidA, "ADA@example.COM", record.Fields{City: new("London")})) // uuidA is now the most recent
	res := h.save(t, "acme", req("acme", "", "ada@EXAMPLE.com", record.Fields{State: new("X")}))
	if res.Created || res.PatientUUID != uuidA {
		t.Fatalf("want the most recently updated record %s, got %+v", uuidA, res)
	}
}

func testEmailChange(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{City: new("London")}))
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{State: new("LDN")})) // same email: index kept
	if res := h.save(t, "acme", req("acme", "", "ada@example.com", record.Fields{})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("an update that kept the email must still be found by it: %+v", res)
	}
	h.save(t, "acme", req("acme", uuidA, "grace@example.com", record.Fields{}))
	if res := h.save(t, "acme", req("acme", "", "grace@example.com", record.Fields{})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("the new email must find the record: %+v", res)
	}
	if res := h.save(t, "acme", req("acme", "", "ada@example.com", record.Fields{})); !res.Created {
		t.Fatalf("the old email must no longer find the record: %+v", res)
	}
	if f := h.get(t, "acme", uuidA).Fields; *f.Email != "grace@example.com" || *f.City != "London" || *f.State != "LDN" {
		t.Fatalf("fields = %+v", f)
	}
}

func testTriggers(t *testing.T, o Opener) {
	h := open(t, o)
	ctx := context.Background()
	r := h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(false)}))
	if len(r.Raised) != 0 || r.Deliveries != 0 {
		t.Fatalf("no trigger yet: %+v", r)
	}
	r = h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true)}))
	if !slices.Equal(r.Raised, []record.DataType{record.NonSensitive}) || r.Deliveries != 2 {
		t.Fatalf("first formCompleted: %+v", r)
	}
	r = h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true), AssessmentCompleted: new(true)}))
	if !slices.Equal(r.Raised, []record.DataType{record.Sensitive}) || r.Deliveries != 2 {
		t.Fatalf("first assessmentCompleted: %+v", r)
	}
	r = h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{AssessmentCompleted: new(true)}))
	if len(r.Raised) != 0 || r.Deliveries != 0 {
		t.Fatalf("a later save must not trigger again: %+v", r)
	}
	r = h.save(t, "globex", req("globex", uuidB, "bob@example.com", record.Fields{AssessmentCompleted: new(true)}))
	if len(r.Raised) != 0 {
		t.Fatalf("a non-sensitive subscriber gets no sensitive event: %+v", r)
	}
	// What the saves returned was committed with them: one delivery per
	// event and destination, the newest first, each with its model.
	ds, err := h.Deliveries(ctx, store.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 4 || ds[3].DataType != record.NonSensitive || ds[0].DataType != record.Sensitive ||
		ds[3].Key.PatientUUID != uuidA || ds[3].FunnelID != "acme-main" || ds[0].EventID <= ds[3].EventID || ds[0].Model == "" {
		t.Fatalf("deliveries = %+v", ds)
	}
	if dests := []string{ds[0].Destination, ds[1].Destination}; !slices.Contains(dests, "d1") || !slices.Contains(dests, "d2") {
		t.Fatalf("destinations of the sensitive event: %v", dests)
	}
}

func testConcurrentCreates(t *testing.T, o Opener) {
	h := open(t, o)
	fields := PlainFields()
	uuids := make([]string, len(fields))
	var wg sync.WaitGroup
	for n, i := range fields {
		wg.Go(func() {
			var f record.Fields
			SetField(&f, i)
			res, err := h.saves.Save(context.Background(), "acme", req("acme", "", "same@example.com", f))
			if err != nil {
				t.Error(err)
			}
			uuids[n] = res.PatientUUID
		})
	}
	wg.Wait()
	for n := range uuids {
		if uuids[n] != uuids[0] {
			t.Fatalf("%d concurrent email-only saves made more than one record: %s and %s", len(fields), uuids[0], uuids[n])
		}
	}
	f := h.get(t, "acme", uuids[0]).Fields
	for _, i := range fields {
		if _, ok := f.Get(i); !ok {
			t.Fatalf("field %s was lost", record.FieldName(i))
		}
	}
}

func testConcurrentUpdates(t *testing.T, o Opener) {
	h := open(t, o)
	fields := PlainFields()
	var wg sync.WaitGroup
	for _, i := range fields {
		wg.Go(func() {
			var f record.Fields
			SetField(&f, i)
			if _, err := h.saves.Save(context.Background(), "acme", req("acme", uuidA, "ada@example.com", f)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	f := h.get(t, "acme", uuidA).Fields
	for _, i := range fields {
		if _, ok := f.Get(i); !ok {
			t.Fatalf("field %s was lost: %+v", record.FieldName(i), f)
		}
	}
}

func testReopen(t *testing.T, o Opener) {
	h := open(t, o)
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true)}))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h2 := open(t, o)
	if h2.get(t, "acme", uuidA).FormCompletedAt.IsZero() {
		t.Fatal("formCompleted time lost over a reopen")
	}
	if r := h2.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FormCompleted: new(true)})); len(r.Raised) != 0 {
		t.Fatal("a reopen must not make the trigger fire again")
	}
}

func testKeyRotation(t *testing.T, o Opener) {
	h := open(t, o, "e1")
	h.save(t, "acme", req("acme", uuidA, "ada@example.com", record.Fields{FirstName: new("Ada")}))
	h.Close()

	rotated := open(t, o, "e2", "e1")
	if got := rotated.get(t, "acme", uuidA).Fields.FirstName; *got != "Ada" {
		t.Fatalf("record sealed with the old key: %v", *got)
	}
	if r := rotated.save(t, "acme", req("acme", "", "ada@example.com", record.Fields{LastName: new("L")})); r.Created {
		t.Fatal("the email index of the old key must still find the record")
	}
	if rep, err := rotated.Reseal(context.Background()); err != nil || rep.Records.ByKey["e2"] != 1 {
		t.Fatalf("Reseal = %+v, %v", rep, err)
	}
	rotated.Close()

	// Resealed under e2, the record opens and is found without e1.
	onlyNew := open(t, o, "e2")
	if f := onlyNew.get(t, "acme", uuidA).Fields; *f.FirstName != "Ada" || *f.LastName != "L" {
		t.Fatalf("after rotation: %+v", f)
	}
	if r := onlyNew.save(t, "acme", req("acme", "", "ada@example.com", record.Fields{})); r.Created {
		t.Fatal("the record was re-indexed under the new key")
	}
}

func testReseal(t *testing.T, o Opener) {
	h := open(t, o, "e1")
	const n = 450 // more than one page
	uuids := make([]string, n)
	for i := range n {
		uuids[i] = h.save(t, "acme", req("acme", "", fmt.Sprintf("p%d@example.com", i), record.Fields{Age: new(float64(i % 100))})).PatientUUID
	}
	h.Close()

	rotated := open(t, o, "e2", "e1")
	rotated.save(t, "acme", req("acme", uuids[0], "p0@example.com", record.Fields{})) // sealed under e2 by the save
	rep, err := rotated.Reseal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records.Rewritten != n-1 || !reflect.DeepEqual(rep.Records.ByKey, map[string]int{"e2": n}) {
		t.Fatalf("Reseal = %+v, want %d resealed and all %d under e2", rep, n-1, n)
	}
	if rep, _ := rotated.Reseal(context.Background()); rep.Records.Rewritten != 0 {
		t.Fatalf("a second Reseal rewrote %d records", rep.Records.Rewritten)
	}
	rotated.Close()

	onlyNew := open(t, o, "e2")
	for i, id := range uuids {
		if got := onlyNew.get(t, "acme", id).Fields.Age; got == nil || *got != float64(i%100) {
			t.Fatalf("record %d after reseal: age %v", i, got)
		}
	}
	if r := onlyNew.save(t, "acme", req("acme", "", "p7@example.com", record.Fields{})); r.Created || r.PatientUUID != uuids[7] {
		t.Fatalf("email lookup after reseal without the old key: %+v", r)
	}
}

func testAudit(t *testing.T, o Opener) {
	h := open(t, o)
	at := time.Now().UTC().Truncate(time.Microsecond)
	for i, action := range []string{"deliveries.list", "deliveries.replay"} {
		if err := h.Audit(context.Background(), store.AuditEntry{At: at.Add(time.Duration(i)), Actor: "admin:ops", Action: action, Target: "delivery:7"}); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()
	log, err := open(t, o).AuditLog(context.Background(), 10)
	if err != nil || len(log) != 2 || log[0].Action != "deliveries.replay" || log[1].Actor != "admin:ops" || !log[1].At.Equal(at) || log[0].Target != "delivery:7" {
		t.Fatalf("AuditLog = %+v, %v", log, err)
	}
}

func testClosed(t *testing.T, o Opener) {
	h := open(t, o)
	h.Close()
	if _, err := h.saves.Save(context.Background(), "acme", req("acme", uuidA, "ada@example.com", record.Fields{})); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Save on a closed store: %v", err)
	}
}

// testResealOutbox: once Reseal ran, the old key can go without losing a
// pending delivery's payload or a kept answer.
func testResealOutbox(t *testing.T, o Opener) {
	ctx := context.Background()
	h := open(t, o, "e1")
	enqueue(t, h, "ada@example.com") // one event, a delivery to d1 and one to d2
	now := time.Now().Add(time.Second)
	claimed := claim(t, h, "p1", now)
	for _, c := range claimed { // both answered; d2's is to be tried again
		fin := store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: 1, Number: 1, Owner: "p1",
			StartedAt: now, StatusCode: 503, ErrorClass: "http_5xx", Response: []byte("busy " + c.Destination)}, State: store.Failed}
		if c.Destination == "d2" {
			fin.State, fin.NextAt = store.Pending, now
		}
		if err := h.Finish(ctx, fin); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()

	rotated := open(t, o, "e2", "e1")
	rep, err := rotated.Reseal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := store.ResealReport{Records: store.Resealed{Rewritten: 1, ByKey: map[string]int{"e2": 1}},
		Payloads: store.Resealed{Rewritten: 1, ByKey: map[string]int{"e2": 1}}, Responses: store.Resealed{Rewritten: 2, ByKey: map[string]int{"e2": 2}}}
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("Reseal = %+v, want %+v", rep, want)
	}
	rotated.Close()

	onlyNew := open(t, o, "e2")
	got := claim(t, onlyNew, "p2", now.Add(time.Minute))
	if len(got) != 1 || got[0].Unreadable || !strings.Contains(string(got[0].Payload), `"firstName":"Ada"`) {
		t.Fatalf("after reseal without the old key: %+v", got)
	}
	for _, c := range claimed {
		_, attempts, err := onlyNew.Delivery(ctx, c.ID)
		if err != nil || len(attempts) != 1 || string(attempts[0].Response) != "busy "+c.Destination {
			t.Fatalf("attempts of %s: %+v, %v", c.Destination, attempts, err)
		}
	}
}

// testUnreadablePayload: a delivery whose payload's key was retired before
// a reseal comes back marked, and does not stop the claim of the others.
func testUnreadablePayload(t *testing.T, o Opener) {
	h := open(t, o, "e1")
	enqueue(t, h, "ada@example.com")
	h.Close()
	h = open(t, o, "e2")
	enqueue(t, h, "bob@example.com")
	got := claim(t, h, "p1", time.Now().Add(time.Second))
	var unreadable, readable int
	for _, c := range got {
		switch {
		case c.Unreadable && c.Payload == nil && c.FHIR == nil:
			unreadable++
		case !c.Unreadable && strings.Contains(string(c.Payload), "bob@example.com"):
			readable++
		default:
			t.Fatalf("claimed %+v", c)
		}
	}
	if unreadable != 2 || readable != 2 {
		t.Fatalf("%d unreadable and %d readable deliveries, want 2 and 2", unreadable, readable)
	}
	rep, err := h.Reseal(context.Background())
	if err == nil {
		t.Fatalf("Reseal of a record sealed under a retired key = %+v, want an error", rep)
	}
}

// Package storetest is the conformance suite of store.Store: every driver
// runs it (see store/sqlite's and store/postgres's tests), so both keep the
// same create-or-update rules, merge semantics, client scoping, triggers and
// concurrency guarantees.
package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
)

// Opener opens a store on one database; called again, it reopens the same
// database (to check what survives a restart or a key rotation).
type Opener func(cfg store.Config) (store.Store, error)

// NewDatabase makes a fresh, empty database for one test.
type NewDatabase func(t *testing.T) Opener

// Run runs the whole suite.
func Run(t *testing.T, newDB NewDatabase) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
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
		{"ClosedStoreRefusesSaves", testClosed},
		{"AuditLogKeepsEntriesNewestFirst", testAudit},
	}
	for _, tt := range append(tests, outboxTests...) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newDB(t))
		})
	}
}

// Keyring returns a keyring of the keys named ids, the first sealing. A
// key's secret depends only on its id, so the same id is the same key.
func Keyring(t testing.TB, ids ...string) *seal.Keyring {
	t.Helper()
	var keys []seal.Key
	for _, id := range ids {
		secret := sha256.Sum256([]byte(id))
		keys = append(keys, seal.Key{ID: id, Secret: secret[:]})
	}
	kr, err := seal.NewKeyring(keys)
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

func open(t *testing.T, o Opener, keys ...string) store.Store {
	t.Helper()
	if len(keys) == 0 {
		keys = []string{"e1"}
	}
	s, err := o(store.Config{Keys: Keyring(t, keys...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const (
	uuidA = "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"
	uuidB = "0b6c3a52-8f1e-4f63-a1d2-9c0e7b4a5d6f"
)

func req(client, uuid, email string, patch record.Patch) store.SaveRequest {
	p := record.Patch{"assessmentType": "faceScan", "funnelID": client + "-main", "email": email}
	if uuid != "" {
		p["patientUUID"] = uuid
	}
	for k, v := range patch {
		p[k] = v
	}
	return store.SaveRequest{ClientID: client, AssessmentType: "faceScan", PatientUUID: uuid, Email: email,
		FunnelID: client + "-main", Patch: p, FullSubscription: true}
}

func save(t *testing.T, s store.Store, r store.SaveRequest) store.SaveResult {
	t.Helper()
	res, err := s.Save(context.Background(), r)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	return res
}

func get(t *testing.T, s store.Store, client, uuid string) record.Record {
	t.Helper()
	rec, err := s.Get(context.Background(), record.Key{ClientID: client, PatientUUID: uuid, AssessmentType: "faceScan"})
	if err != nil {
		t.Fatalf("Get(%s, %s): %v", client, uuid, err)
	}
	return rec
}

func testRules(t *testing.T, o Opener) {
	s := open(t, o)
	// Rule 2: a patientUUID with no record creates one.
	if res := save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"age": 36.0})); !res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 2: %+v", res)
	}
	// Rule 1: the same key updates it.
	if res := save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"city": "London"})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 1: %+v", res)
	}
	// Rule 3: no patientUUID, same email and assessment type: update it.
	if res := save(t, s, req("acme", "", "ada@example.com", record.Patch{"state": "LDN"})); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("rule 3: %+v", res)
	}
	// Rule 4: no patientUUID, unknown email: a new record with a new UUID.
	res := save(t, s, req("acme", "", "bob@example.com", nil))
	if !res.Created || res.PatientUUID == "" || res.PatientUUID == uuidA {
		t.Fatalf("rule 4: %+v", res)
	}
	if got := get(t, s, "acme", res.PatientUUID).Fields["patientUUID"]; got != res.PatientUUID {
		t.Fatalf("created record's patientUUID field = %v", got)
	}
	// Another assessment type is another record, even by email.
	other := req("acme", "", "ada@example.com", nil)
	other.AssessmentType, other.Patch["assessmentType"] = "voiceScan", "voiceScan"
	if res := save(t, s, other); !res.Created {
		t.Fatalf("other assessment type: %+v", res)
	}
	rec := get(t, s, "acme", uuidA)
	want := record.Fields{"assessmentType": "faceScan", "funnelID": "acme-main", "email": "ada@example.com", "patientUUID": uuidA,
		"age": 36.0, "city": "London", "state": "LDN"}
	if !reflect.DeepEqual(rec.Fields, want) {
		t.Fatalf("fields = %v, want %v", rec.Fields, want)
	}
	if rec.CreatedAt.IsZero() || rec.UpdatedAt.Before(rec.CreatedAt) || rec.FunnelID != "acme-main" {
		t.Fatalf("record = %+v", rec)
	}
}

func testMerge(t *testing.T, o Opener) {
	s := open(t, o)
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"firstName": "Ada", "city": "London", "age": 36.0}))
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"city": nil, "age": 37.0}))
	f := get(t, s, "acme", uuidA).Fields
	if f["firstName"] != "Ada" || f["age"] != 37.0 {
		t.Fatalf("absent fields must keep, given ones overwrite: %v", f)
	}
	if _, ok := f["city"]; ok {
		t.Fatalf("null must clear: %v", f)
	}
}

func testScoping(t *testing.T, o Opener) {
	s := open(t, o)
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"firstName": "Ada"}))
	res := save(t, s, req("globex", uuidA, "ada@example.com", record.Patch{"firstName": "Eve"}))
	if !res.Created {
		t.Fatal("another client's save with the same patientUUID must create its own record")
	}
	if res := save(t, s, req("globex", "", "ada@example.com", nil)); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("globex's email lookup must find globex's record: %+v", res)
	}
	if got := get(t, s, "acme", uuidA).Fields["firstName"]; got != "Ada" {
		t.Fatalf("acme's record was changed by another client: %v", got)
	}
	if _, err := s.Get(context.Background(), record.Key{ClientID: "initech", PatientUUID: uuidA, AssessmentType: "faceScan"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get for a client without the record: %v", err)
	}
	if res := save(t, s, req("initech", "", "ada@example.com", nil)); !res.Created || res.PatientUUID == uuidA {
		t.Fatalf("an email lookup must never find another client's record: %+v", res)
	}
}

func testEmailLookup(t *testing.T, o Opener) {
	s := open(t, o)
	save(t, s, req("acme", uuidA, "Ada@Example.com", nil))
	save(t, s, req("acme", uuidB, "ada@example.com", nil))
	time.Sleep(2 * time.Millisecond)
	save(t, s, req("acme", uuidA, "ADA@example.COM", record.Patch{"city": "London"})) // uuidA is now the most recent
	res := save(t, s, req("acme", "", "ada@EXAMPLE.com", record.Patch{"state": "X"}))
	if res.Created || res.PatientUUID != uuidA {
		t.Fatalf("want the most recently updated record %s, got %+v", uuidA, res)
	}
}

func testEmailChange(t *testing.T, o Opener) {
	s := open(t, o)
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"city": "London"}))
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"state": "LDN"})) // same email: index kept
	if res := save(t, s, req("acme", "", "ada@example.com", nil)); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("an update that kept the email must still be found by it: %+v", res)
	}
	save(t, s, req("acme", uuidA, "grace@example.com", nil))
	if res := save(t, s, req("acme", "", "grace@example.com", nil)); res.Created || res.PatientUUID != uuidA {
		t.Fatalf("the new email must find the record: %+v", res)
	}
	if res := save(t, s, req("acme", "", "ada@example.com", nil)); !res.Created {
		t.Fatalf("the old email must no longer find the record: %+v", res)
	}
	if f := get(t, s, "acme", uuidA).Fields; f["email"] != "grace@example.com" || f["city"] != "London" || f["state"] != "LDN" {
		t.Fatalf("fields = %v", f)
	}
}

func testTriggers(t *testing.T, o Opener) {
	s := open(t, o)
	ctx := context.Background()
	toD1 := func(client, uuid, email string, patch record.Patch) store.SaveRequest {
		r := req(client, uuid, email, patch)
		r.Destinations = []string{"d1"}
		return r
	}
	r := save(t, s, toD1("acme", uuidA, "ada@example.com", record.Patch{"formCompleted": false}))
	if len(r.Events) != 0 {
		t.Fatalf("no trigger yet: %+v", r)
	}
	r = save(t, s, toD1("acme", uuidA, "ada@example.com", record.Patch{"formCompleted": true}))
	if !r.Triggers.FormCompleted || len(r.Events) != 1 || r.Events[0].DataType != record.NonSensitive {
		t.Fatalf("first formCompleted: %+v", r)
	}
	r = save(t, s, toD1("acme", uuidA, "ada@example.com", record.Patch{"formCompleted": true, "assessmentCompleted": true}))
	if r.Triggers.FormCompleted || !r.Triggers.AssessmentCompleted || len(r.Events) != 1 || r.Events[0].DataType != record.Sensitive {
		t.Fatalf("first assessmentCompleted: %+v", r)
	}
	r = save(t, s, toD1("acme", uuidA, "ada@example.com", record.Patch{"assessmentCompleted": true}))
	if r.Triggers != (record.Triggers{}) || len(r.Events) != 0 {
		t.Fatalf("a later save must not trigger again: %+v", r)
	}
	nonFull := toD1("acme", uuidB, "bob@example.com", record.Patch{"assessmentCompleted": true})
	nonFull.FullSubscription = false
	if r := save(t, s, nonFull); !r.Triggers.AssessmentCompleted || len(r.Events) != 0 {
		t.Fatalf("a non-sensitive subscriber gets no sensitive event: %+v", r)
	}
	// What the saves returned was committed with them: one delivery per
	// event, the newest first.
	ds, err := s.Deliveries(ctx, store.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[1].DataType != record.NonSensitive || ds[0].DataType != record.Sensitive ||
		ds[1].Key.PatientUUID != uuidA || ds[1].FunnelID != "acme-main" || ds[0].EventID <= ds[1].EventID {
		t.Fatalf("deliveries = %+v", ds)
	}
}

func testConcurrentCreates(t *testing.T, o Opener) {
	s := open(t, o)
	const n = 50
	uuids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := s.Save(context.Background(), req("acme", "", "same@example.com", record.Patch{fmt.Sprintf("f%d", i): true}))
			if err != nil {
				t.Error(err)
			}
			uuids[i] = res.PatientUUID
		})
	}
	wg.Wait()
	for i := range uuids {
		if uuids[i] != uuids[0] {
			t.Fatalf("50 concurrent email-only saves made more than one record: %s and %s", uuids[0], uuids[i])
		}
	}
	f := get(t, s, "acme", uuids[0]).Fields
	for i := range n {
		if f[fmt.Sprintf("f%d", i)] != true {
			t.Fatalf("field f%d was lost", i)
		}
	}
}

func testConcurrentUpdates(t *testing.T, o Opener) {
	s := open(t, o)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := s.Save(context.Background(), req("acme", uuidA, "ada@example.com", record.Patch{fmt.Sprintf("f%d", i): float64(i)})); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	f := get(t, s, "acme", uuidA).Fields
	for i := range n {
		if f[fmt.Sprintf("f%d", i)] != float64(i) {
			t.Fatalf("field f%d was lost: %v", i, f)
		}
	}
}

func testReopen(t *testing.T, o Opener) {
	s := open(t, o)
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"formCompleted": true}))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, o)
	if get(t, s2, "acme", uuidA).FormCompletedAt.IsZero() {
		t.Fatal("formCompleted time lost over a reopen")
	}
	if r := save(t, s2, req("acme", uuidA, "ada@example.com", record.Patch{"formCompleted": true})); len(r.Events) != 0 {
		t.Fatal("a reopen must not make the trigger fire again")
	}
}

func testKeyRotation(t *testing.T, o Opener) {
	s := open(t, o, "e1")
	save(t, s, req("acme", uuidA, "ada@example.com", record.Patch{"firstName": "Ada"}))
	s.Close()

	rotated := open(t, o, "e2", "e1")
	if got := get(t, rotated, "acme", uuidA).Fields["firstName"]; got != "Ada" {
		t.Fatalf("record sealed with the old key: %v", got)
	}
	if r := save(t, rotated, req("acme", "", "ada@example.com", record.Patch{"lastName": "L"})); r.Created {
		t.Fatal("the email index of the old key must still find the record")
	}
	rotated.Close()

	// The save above rewrote the record under e2: it opens without e1.
	onlyNew := open(t, o, "e2")
	if f := get(t, onlyNew, "acme", uuidA).Fields; f["firstName"] != "Ada" || f["lastName"] != "L" {
		t.Fatalf("after rotation: %v", f)
	}
	if r := save(t, onlyNew, req("acme", "", "ada@example.com", nil)); r.Created {
		t.Fatal("the record was re-indexed under the new key")
	}
}

func testReseal(t *testing.T, o Opener) {
	s := open(t, o, "e1")
	const n = 450 // more than one page
	uuids := make([]string, n)
	for i := range n {
		uuids[i] = save(t, s, req("acme", "", fmt.Sprintf("p%d@example.com", i), record.Patch{"age": float64(i % 100)})).PatientUUID
	}
	s.Close()

	rotated := open(t, o, "e2", "e1")
	save(t, rotated, req("acme", uuids[0], "p0@example.com", nil)) // already rewritten under e2
	rep, err := rotated.Reseal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resealed != n-1 || !reflect.DeepEqual(rep.Records, map[string]int{"e2": n}) {
		t.Fatalf("Reseal = %+v, want %d resealed and all %d under e2", rep, n-1, n)
	}
	if rep, _ := rotated.Reseal(context.Background()); rep.Resealed != 0 {
		t.Fatalf("a second Reseal rewrote %d records", rep.Resealed)
	}
	rotated.Close()

	onlyNew := open(t, o, "e2")
	for i, id := range uuids {
		if got := get(t, onlyNew, "acme", id).Fields["age"]; got != float64(i%100) {
			t.Fatalf("record %d after reseal: age %v", i, got)
		}
	}
	if r := save(t, onlyNew, req("acme", "", "p7@example.com", nil)); r.Created || r.PatientUUID != uuids[7] {
		t.Fatalf("email lookup after reseal without the old key: %+v", r)
	}
}

func testAudit(t *testing.T, o Opener) {
	s := open(t, o)
	at := time.Now().UTC().Truncate(time.Microsecond)
	for i, action := range []string{"deliveries.list", "deliveries.replay"} {
		if err := s.Audit(context.Background(), store.AuditEntry{At: at.Add(time.Duration(i)), Actor: "admin:ops", Action: action, Target: "delivery:7"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	log, err := open(t, o).AuditLog(context.Background(), 10)
	if err != nil || len(log) != 2 || log[0].Action != "deliveries.replay" || log[1].Actor != "admin:ops" || !log[1].At.Equal(at) || log[0].Target != "delivery:7" {
		t.Fatalf("AuditLog = %+v, %v", log, err)
	}
}

func testClosed(t *testing.T, o Opener) {
	s := open(t, o)
	s.Close()
	if _, err := s.Save(context.Background(), req("acme", uuidA, "ada@example.com", nil)); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Save on a closed store: %v", err)
	}
}

// Package storetest is the conformance suite of store.Store: every driver
// runs it (see store/sqlite's and store/postgres's tests), so both keep the
// same guarantees. It drives each store through the real save service
// (internal/save), as pads does: the create-or-update rules, merge
// semantics, client scoping, triggers and concurrency that users rely on
// hold on every driver, and so do the store's own promises (Commit's
// conflicts, the outbox, the audit log).
package storetest

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/save"
	"github.com/pads-dev/pads/internal/seal"
	"github.com/pads-dev/pads/internal/store"
)

// Opener opens a store on one database; called again, it reopens the same
// database (to check what survives a restart or a key rotation).
type Opener func(cfg store.Config) (store.Store, error)

// NewDatabase makes a fresh, empty database for one test.
type NewDatabase func(t *testing.T) Opener

type test struct {
	name string
	fn   func(*testing.T, Opener)
}

// Run runs the whole suite.
func Run(t *testing.T, newDB NewDatabase) {
	for _, tt := range append(append(append(append(append(recordTests, commitTests...), outboxTests...), consoleTests...), fhirTests...), append(revocationTests, pauseTests...)...) {
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

// Config is the clients the suite saves for: acme (full results, two
// destinations d1 and d2), globex (identity data only, no destination) and
// initech (full results, no destination).
const Config = `
clients:
  - id: acme
    apiKeys: [{key: acme-test-key-0123456789}]
    subscription: full
    funnels: [{id: acme-main}]
    destinations:
      - {id: d1, type: webhook, url: "https://d1.acme.example/hook"}
      - {id: d2, type: webhook, url: "https://d2.acme.example/hook"}
  - id: globex
    apiKeys: [{key: globex-test-key-0123456789}]
    funnels: [{id: globex-main}]
  - id: initech
    apiKeys: [{key: initech-test-key-0123456789}]
    subscription: full
    funnels: [{id: initech-main}]
`

// harness is a store with the save service over it.
type harness struct {
	store.Store
	saves *save.Service
}

func open(t *testing.T, o Opener, keys ...string) *harness {
	t.Helper()
	if len(keys) == 0 {
		keys = []string{"e1"}
	}
	s, err := o(store.Config{Keys: Keyring(t, keys...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{Store: s, saves: Saves(t, s)}
}

// Saves returns the save service over s, for the clients of Config.
func Saves(t testing.TB, s store.Records) *save.Service {
	t.Helper()
	cfg, err := config.Parse([]byte(Config), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return save.New(save.Deps{Store: s, Config: func() *config.Config { return cfg }, Payloads: payload.Encode, FHIR: fhir.Encode})
}

const (
	uuidA = "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"
	uuidB = "0b6c3a52-8f1e-4f63-a1d2-9c0e7b4a5d6f"
)

// Request is a valid save request of a faceScan record of client through
// its main funnel; uuid "" looks the record up by email. clear names
// fields the save sets to null.
func Request(client, uuid, email string, f record.Fields, clear ...string) *intake.Request {
	f.AssessmentType, f.FunnelID, f.Email = new("faceScan"), new(client+"-main"), new(email)
	if uuid != "" {
		f.PatientUUID = new(uuid)
	}
	p := record.Patch{Values: f}
	for _, name := range clear {
		i, ok := record.FieldIndex(name)
		if !ok {
			panic("storetest: no field " + name)
		}
		p.Clear(i)
	}
	return &intake.Request{AssessmentType: "faceScan", FunnelID: client + "-main", Email: email, PatientUUID: uuid, Patch: p}
}

var req = Request

func (h *harness) save(t *testing.T, client string, r *intake.Request) save.Result {
	t.Helper()
	res, err := h.saves.Save(context.Background(), client, r)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	return res
}

func (h *harness) get(t *testing.T, client, uuid string) record.Record {
	t.Helper()
	rec, err := h.Get(context.Background(), record.Key{ClientID: client, PatientUUID: uuid, AssessmentType: "faceScan"})
	if err != nil {
		t.Fatalf("Get(%s, %s): %v", client, uuid, err)
	}
	return rec
}

// SetField sets field i of f to a valid value of its kind.
func SetField(f *record.Fields, i int) {
	switch k := intake.Fields[i]; k.Kind {
	case intake.KindNumber:
		f.Set(i, k.Min+1)
	case intake.KindBool:
		f.Set(i, true)
	default:
		f.Set(i, "value of "+k.Name)
	}
}

// PlainFields are the numbers of the fields a save may set freely: not the
// key fields, and not the flags that raise events.
func PlainFields() []int {
	var out []int
	for i, f := range intake.Fields {
		switch f.Name {
		case "assessmentType", "funnelID", "email", "patientUUID", "formCompleted", "assessmentCompleted":
			continue
		}
		out = append(out, i)
	}
	return out
}

// Package storetest is the conformance suite of store.Store: every driver
// runs it (see store/sqlite's and store/postgres's tests), so both keep the
// same guarantees. It saves records as pads's save service does (Saver:
// find, internal/record's rules, commit, start over on a conflict), with
// a small routing table and payloads of its own, so that it imports
// nothing above the store: the create-or-update rules, merge semantics,
// client scoping, triggers and concurrency that users rely on hold on
// every driver, and so do the store's own promises (Commit's conflicts,
// the outbox, the audit log).
package storetest

import (
	"context"
	"crypto/sha256"
	"slices"
	"testing"

	"github.com/pads-dev/pads/internal/record"
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
	for _, tt := range slices.Concat(recordTests, commitTests, outboxTests, claimSkipTests, consoleTests, fhirTests, snapshotTests, revocationTests, lifecycleTests, redeliverTests, pauseTests, updateTests) {
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

// Config is Clients as a pads config, for tests above the store that run
// the real save service on the suite's clients: acme (full results, two
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

// harness is a store with a Saver over it.
type harness struct {
	store.Store
	saves *Saver
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

const (
	uuidA = "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"
	uuidB = "0b6c3a52-8f1e-4f63-a1d2-9c0e7b4a5d6f"
)

var req = Request

func (h *harness) save(t *testing.T, client string, r *SaveRequest) Result {
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

package postgres_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestConformance runs the store suite on PostgreSQL when
// PADS_TEST_POSTGRES_URL names a server (.ci/run starts one). Each test
// gets a database of its own, dropped afterwards.
func TestConformance(t *testing.T) {
	pgtest.NewDatabase(t) // skips without a server
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		dbURL := pgtest.NewDatabase(t)
		return func(cfg store.Config) (store.Store, error) {
			return postgres.Open(context.Background(), dbURL, cfg)
		}
	})
}

// TestTwoProcessesMakeOneRecordAndLoseNoField races two stores (two pools,
// as two pads processes have) on one database.
func TestTwoProcessesMakeOneRecordAndLoseNoField(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	keys := storetest.Keyring(t, "e1")
	var stores [2]store.Store
	var saves [2]*storetest.Saver
	for i := range stores {
		s, err := postgres.Open(context.Background(), dbURL, store.Config{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i], saves[i] = s, storetest.Saves(t, s)
	}
	fields := storetest.PlainFields()
	ids := make([]string, len(fields))
	var wg sync.WaitGroup
	for n, i := range fields {
		wg.Go(func() {
			var f record.Fields
			storetest.SetField(&f, i)
			email := []string{"Same@Example.com", "same@example.com"}[n%2]
			res, err := saves[n%2].Save(context.Background(), "acme", storetest.Request("acme", "", email, f))
			if err != nil {
				t.Error(err)
			}
			ids[n] = res.PatientUUID
		})
	}
	wg.Wait()
	for n := range ids {
		if ids[n] != ids[0] {
			t.Fatalf("two processes made two records: %s and %s", ids[0], ids[n])
		}
	}
	rec, err := stores[0].Get(context.Background(), record.Key{ClientID: "acme", PatientUUID: ids[0], AssessmentType: "faceScan"})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range fields {
		if _, ok := rec.Fields.Get(i); !ok {
			t.Fatalf("field %s was lost", record.FieldName(i))
		}
	}
}

// A database from before migration 3 gets the email index without
// updated_at, and its records are still found by email.
func TestUpgradeRebuildsTheEmailIndex(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	ctx := context.Background()
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	req := storetest.Request("acme", "", "ada@example.com", record.Fields{})
	s, err := postgres.Open(ctx, dbURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	created, err := storetest.Saves(t, s).Save(ctx, "acme", req)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Put the database back as migration 2 left it.
	conn := pgtest.Connect(t, dbURL)
	if _, err := conn.Exec(ctx, `DROP INDEX records_by_email;
		CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index, updated_at);
		DELETE FROM schema_migrations WHERE version = 3`); err != nil {
		t.Fatal(err)
	}

	s, err = postgres.Open(ctx, dbURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res, err := storetest.Saves(t, s).Save(ctx, "acme", req); err != nil || res.Created || res.PatientUUID != created.PatientUUID {
		t.Fatalf("save by email after the upgrade = %+v, %v; want an update of %s", res, err, created.PatientUUID)
	}
	var def string
	if err := conn.QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE indexname = 'records_by_email'").Scan(&def); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(def, "updated_at") {
		t.Fatalf("index after the upgrade: %s", def)
	}
}

// A process's leases are taken over by another only once it is gone:
// while it holds its owner, however long its attempts take, they are not.
func TestLeasesOfALiveProcessAreNotTakenOver(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	ctx := context.Background()
	keys := storetest.Keyring(t, "e1")
	var stores [2]store.Store
	for i := range stores {
		s, err := postgres.Open(ctx, dbURL, store.Config{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	a, b := stores[0], stores[1]
	if _, err := storetest.Saves(t, a).Save(ctx, "acme", storetest.Request("acme", "", "a@example.com", record.Fields{FormCompleted: new(true)})); err != nil {
		t.Fatal(err)
	}
	hold, err := a.HoldOwner(ctx, "process-a")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)
	claimed, err := a.Claim(ctx, store.ClaimRequest{Owner: "process-a", Now: now, LeaseUntil: now.Add(time.Hour), Limit: 10})
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	if n, err := b.TakeOver(ctx, "process-b"); err != nil || n != 0 {
		t.Fatalf("TakeOver while process-a lives = %d, %v; want 0", n, err)
	}
	hold.Release() // process-a is gone: its connection closed
	// The server ends process-a's session, and frees its lock, a moment
	// after the connection closes.
	var n int
	for deadline := time.Now().Add(10 * time.Second); n == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, err = b.TakeOver(ctx, "process-b"); err != nil {
			t.Fatal(err)
		}
	}
	if n != 2 {
		t.Fatalf("TakeOver after process-a is gone = %d; want its 2 leases", n)
	}
	got, err := b.Claim(ctx, store.ClaimRequest{Owner: "process-b", Now: now, LeaseUntil: now.Add(time.Hour), Limit: 10})
	if err != nil || len(got) != 2 {
		t.Fatalf("claim after the takeover: %d, %v", len(got), err)
	}
}

// A dump of the database holds no submitted email, name, phone number or
// health value in clear: records, event payloads and answers are sealed,
// and the email is kept only as a keyed hash.
func TestADumpOfTheDatabaseHoldsNoValueInClear(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	pgDump, err := exec.LookPath("pg_dump")
	if err != nil {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
		if len(matches) == 0 {
			t.Skip("no pg_dump on this machine")
		}
		pgDump = matches[len(matches)-1]
	}
	ctx := context.Background()
	s, err := postgres.Open(ctx, dbURL, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	secrets := record.Fields{FirstName: new("Zebediah"), LastName: new("Quartermaine"),
		PhoneNumber: new("555-867-5309"), City: new("Llanfairpwllgwyngyll"), SmokerRiskStatus: new("occasional-smoker"),
		HeartRateBpm: new(73.25), SystolicBloodPressureMmhg: new(137.5), RiskTotalCholestrol: new(263.75),
		Age: new(47.0), FormCompleted: new(true), AssessmentCompleted: new(true), // and the payloads of both events
	}
	if _, err := storetest.Saves(t, s).Save(ctx, "acme",
		storetest.Request("acme", "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", "Unmistakable.Person@example.org", secrets)); err != nil {
		t.Fatal(err)
	}
	// An attempt whose answer echoes the payload, as a receiver might.
	now := time.Now().Add(time.Second)
	claimed, err := s.Claim(ctx, store.ClaimRequest{Owner: "p", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 1})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	c := claimed[0]
	if err := s.Finish(ctx, store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: 1, Number: 1,
		Owner: "p", StartedAt: now, StatusCode: 200, Response: c.Payload}, State: store.Delivered}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pgDump, "--data-only", "--dbname", dbURL).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("COPY public.records")) {
		t.Fatalf("the dump holds no records table:\n%.2000s", out)
	}
	for _, needle := range []string{"Unmistakable", "unmistakable", "Zebediah", "Quartermaine", "867-5309", "Llanfairpwllgwyngyll",
		"occasional-smoker", "73.25", "137.5", "263.75"} {
		if bytes.Contains(out, []byte(needle)) {
			t.Errorf("the dump holds %q in clear", needle)
		}
	}
}

// A database from before migration 90, with events and deliveries, keeps
// every row through it, and then takes results-updated events.
func TestUpgradeLetsResultsUpdatedInAndKeepsEveryRow(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	ctx := context.Background()
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	conn := pgtest.Connect(t, dbURL)
	// The constraints as migration 1 made them.
	storetest.UpgradeToResultsUpdated(t, func() (store.Store, error) { return postgres.Open(ctx, dbURL, cfg) },
		func(q string) error { _, err := conn.Exec(ctx, q); return err },
		`ALTER TABLE events DROP CONSTRAINT events_data_type_check,
			ADD CONSTRAINT events_data_type_check CHECK (data_type IN ('non-sensitive', 'sensitive'));
		ALTER TABLE deliveries DROP CONSTRAINT deliveries_data_type_check,
			ADD CONSTRAINT deliveries_data_type_check CHECK (data_type IN ('non-sensitive', 'sensitive'));
		DELETE FROM schema_migrations WHERE version = 90`)
}

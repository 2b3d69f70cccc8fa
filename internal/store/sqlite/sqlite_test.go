package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "pads.db")
		return func(cfg store.Config) (store.Store, error) {
			return sqlite.Open(context.Background(), path, cfg)
		}
	})
}

func TestDatabaseFileHoldsNoValueInClear(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "pads.db")
	s, err := sqlite.Open(context.Background(), path, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	secrets := record.Fields{FirstName: new("Zebediah"), LastName: new("Quartermaine"),
		PhoneNumber: new("555-867-5309"), City: new("Llanfairpwllgwyngyll"), SmokerRiskStatus: new("occasional-smoker"),
		HeartRateBpm: new(73.25), SystolicBloodPressureMmhg: new(187.5), RiskTotalCholestrol: new(263.75),
		FormCompleted: new(true), AssessmentCompleted: new(true), // and the payloads of both events
	}
	_, err = storetest.Saves(t, s).Save(context.Background(), "acme",
		storetest.Request("acme", "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", "Unmistakable.Person@example.org", secrets))
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	files, _ := filepath.Glob(filepath.Join(dir, "pads.db*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all = append(all, b...)
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	s.Close()
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatal("read no database bytes")
	}
	for _, needle := range []string{"Unmistakable", "unmistakable", "Zebediah", "Quartermaine", "867-5309", "Llanfairpwllgwyngyll", "occasional-smoker", "73.25", "187.5", "263.75"} {
		if bytes.Contains(all, []byte(needle)) {
			t.Errorf("database files contain %q in clear", needle)
		}
	}
}

// A database from before migration 4 gets the email index without
// updated_at, and its records are still found by email.
func TestUpgradeRebuildsTheEmailIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pads.db")
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	req := storetest.Request("acme", "", "ada@example.com", record.Fields{})
	s, err := sqlite.Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	created, err := storetest.Saves(t, s).Save(context.Background(), "acme", req)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Put the database back as migration 3 left it.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP INDEX records_by_email;
		CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index, updated_at);
		DELETE FROM schema_migrations WHERE version = 4`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = sqlite.Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res, err := storetest.Saves(t, s).Save(context.Background(), "acme", req); err != nil || res.Created || res.PatientUUID != created.PatientUUID {
		t.Fatalf("save by email after the upgrade = %+v, %v; want an update of %s", res, err, created.PatientUUID)
	}
	db, err = sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def string
	if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 'records_by_email'").Scan(&def); err != nil {
		t.Fatal(err)
	}
	if want := "CREATE INDEX records_by_email ON records (client_id, assessment_type, email_index)"; def != want {
		t.Fatalf("index after the upgrade: %s, want %s", def, want)
	}
}

// A database from before migration 90, with events and deliveries, keeps
// every row through it, and then takes results-updated events; the
// file's integrity and foreign keys check out.
func TestUpgradeLetsResultsUpdatedInAndKeepsEveryRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	cfg := store.Config{Keys: storetest.Keyring(t, "e1")}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// db's one connection, made by the revert, stays open across the
	// upgrade: a connection that read the old schema must read the new one
	// after it. The schema as migration 81 left it:
	storetest.UpgradeToResultsUpdated(t, func() (store.Store, error) { return sqlite.Open(ctx, path, cfg) },
		func(q string) error { _, err := db.Exec(q); return err },
		`PRAGMA writable_schema = ON;
		UPDATE sqlite_schema SET sql = replace(sql, ', ''results-updated''))', '))') WHERE name IN ('events', 'deliveries');
		PRAGMA writable_schema = RESET;
		DELETE FROM schema_migrations WHERE version = 90`)
	if _, err := db.Exec(`UPDATE events SET data_type = data_type WHERE data_type = 'results-updated'`); err != nil {
		t.Fatalf("a connection open before the upgrade still reads the old CHECK: %v", err)
	}
	var integrity string
	var fkProblems int
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q, %v", integrity, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM pragma_foreign_key_check").Scan(&fkProblems); err != nil || fkProblems != 0 {
		t.Fatalf("foreign_key_check: %d, %v", fkProblems, err)
	}
}

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
	secrets := map[string]any{
		"email": "Unmistakable.Person@example.org", "firstName": "Zebediah", "lastName": "Quartermaine",
		"phoneNumber": "555-867-5309", "city": "Llanfairpwllgwyngyll", "smokerRiskStatus": "occasional-smoker",
		"heartRateBpm": 73.25, "systolicBloodPressureMmhg": 187.5, "riskTotalCholestrol": 263.75,
	}
	patch := record.Patch{"assessmentType": "faceScan", "funnelID": "acme-main"}
	for k, v := range secrets {
		patch[k] = v
	}
	_, err = s.Save(context.Background(), store.SaveRequest{ClientID: "acme", AssessmentType: "faceScan",
		PatientUUID: "6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", Email: "Unmistakable.Person@example.org", FunnelID: "acme-main", Patch: patch})
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
	req := store.SaveRequest{ClientID: "acme", AssessmentType: "faceScan", Email: "ada@example.com", FunnelID: "acme-main",
		Patch: record.Patch{"assessmentType": "faceScan", "funnelID": "acme-main", "email": "ada@example.com"}}
	s, err := sqlite.Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Save(context.Background(), req)
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
	if res, err := s.Save(context.Background(), req); err != nil || res.Created || res.PatientUUID != created.PatientUUID {
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

package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

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
	for i := range stores {
		s, err := postgres.Open(context.Background(), dbURL, store.Config{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	const n = 60
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			field := fmt.Sprintf("f%d", i)
			res, err := stores[i%2].Save(context.Background(), store.SaveRequest{ClientID: "acme", AssessmentType: "faceScan",
				Email: "Same@Example.com", FunnelID: "acme-main",
				Patch: record.Patch{"assessmentType": "faceScan", "funnelID": "acme-main", "email": "same@example.com", field: true}})
			if err != nil {
				t.Error(err)
			}
			ids[i] = res.PatientUUID
		})
	}
	wg.Wait()
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("two processes made two records: %s and %s", ids[0], ids[i])
		}
	}
	rec, err := stores[0].Get(context.Background(), record.Key{ClientID: "acme", PatientUUID: ids[0], AssessmentType: "faceScan"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if rec.Fields[fmt.Sprintf("f%d", i)] != true {
			t.Fatalf("field f%d was lost", i)
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
	req := store.SaveRequest{ClientID: "acme", AssessmentType: "faceScan", Email: "ada@example.com", FunnelID: "acme-main",
		Patch: record.Patch{"assessmentType": "faceScan", "funnelID": "acme-main", "email": "ada@example.com"}}
	s, err := postgres.Open(ctx, dbURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Save(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Put the database back as migration 2 left it.
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
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
	if res, err := s.Save(ctx, req); err != nil || res.Created || res.PatientUUID != created.PatientUUID {
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

package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestTheSweepLeavesARecordSavedWhileItWaits: PostgreSQL re-checks a row
// an UPDATE waited for against the UPDATE's own conditions only, so the
// sweep's mark must state them on the records it updates: a save of an
// expired record, committed while the mark waits for its row, keeps it.
func TestTheSweepLeavesARecordSavedWhileItWaits(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	ctx := context.Background()
	s, err := postgres.Open(ctx, dbURL, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	watch, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	hold := func(uuid string, savedAt time.Time) func() {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// What a save's update of the record does to it.
		if _, err := tx.Exec(ctx, "UPDATE records SET updated_at = $1, version = version + 1 WHERE patient_uuid = $2",
			savedAt.UnixNano(), uuid); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	waiting := func() bool {
		var n int
		err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE records SET version = -version%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	storetest.SweepRacesASave(t, s, hold, waiting)
}

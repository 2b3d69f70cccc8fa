package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestTheSweepLeavesADeliveryReplayedWhileItRuns: on PostgreSQL each of
// the sweep's statements sees what committed before it began, so a replay
// that commits between its mark and its removals must be seen by the
// removals themselves.
func TestTheSweepLeavesADeliveryReplayedWhileItRuns(t *testing.T) {
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
	hold := func() func() {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT 1 FROM attempts FOR UPDATE"); err != nil {
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
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM attempts%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	storetest.SweepRacesAReplay(t, s, hold, waiting)
}

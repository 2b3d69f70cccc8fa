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

// openWithConn opens a store on a new database, and a connection of the
// test's own to it, both closed at the end of the test.
func openWithConn(t *testing.T) (*postgres.Store, *pgx.Conn) {
	t.Helper()
	dbURL := pgtest.NewDatabase(t)
	s, err := postgres.Open(context.Background(), dbURL, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, pgtest.Connect(t, dbURL)
}

// holdIn runs q in a transaction of conn and returns its commit: what q
// locked stays locked until then.
func holdIn(t *testing.T, conn *pgx.Conn, q string, args ...any) (commit func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, q, args...); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// waitsOnALock reports, through a connection of its own, whether a
// statement of conn's database that begins with prefix waits for a lock.
func waitsOnALock(t *testing.T, conn *pgx.Conn, prefix string) func() bool {
	watch := pgtest.Connect(t, conn.Config().ConnString())
	return func() bool {
		var n int
		err := watch.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND starts_with(query, $1)`, prefix).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
}

// TestTheSweepLeavesARecordSavedWhileItWaits: PostgreSQL re-checks a row
// an UPDATE waited for against the UPDATE's own conditions only, so the
// sweep's mark must state them on the records it updates: a save of an
// expired record, committed while the mark waits for its row, keeps it.
func TestTheSweepLeavesARecordSavedWhileItWaits(t *testing.T) {
	t.Parallel()
	s, conn := openWithConn(t)
	hold := func(uuid string, savedAt time.Time) func() {
		// What a save's update of the record does to it.
		return holdIn(t, conn, "UPDATE records SET updated_at = $1, version = version + 1 WHERE patient_uuid = $2",
			savedAt.UnixNano(), uuid)
	}
	storetest.SweepRacesASave(t, s, hold, waitsOnALock(t, conn, "UPDATE records SET version = -version"))
}

// TestTheSweepLeavesADeliveryReplayedWhileItRuns: each of the sweep's
// statements sees what committed before it began, so a replay that
// commits between its mark and its removals must be seen by the removals
// themselves.
func TestTheSweepLeavesADeliveryReplayedWhileItRuns(t *testing.T) {
	t.Parallel()
	s, conn := openWithConn(t)
	hold := func() func() { return holdIn(t, conn, "SELECT 1 FROM attempts FOR UPDATE") }
	storetest.SweepRacesAReplay(t, s, hold, waitsOnALock(t, conn, "DELETE FROM attempts"))
}

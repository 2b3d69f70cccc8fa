package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// BenchmarkClaimBesideABacklog measures one claim of 32 due deliveries
// of a healthy destination while another destination, down for a day,
// has 1,000 or 1,000,000 deliveries pending, each waiting for its next
// retry (scheduled over the next 24 hours). A claim walks only the due
// end of the pending index, so the backlog should cost it nothing. Run:
//
//	go test -run '^$' -bench ClaimBesideABacklog -benchtime 2000x ./internal/store/sqlite
func BenchmarkClaimBesideABacklog(b *testing.B) {
	ctx := context.Background()
	type backlogged struct {
		pending int
		s       *sqlite.Store
		db      *sql.DB
		batch   int
	}
	var all []*backlogged
	for _, pending := range []int{1_000, 1_000_000} {
		s, db := openRaw(b)
		start := time.Now()
		queueBacklog(b, db, pending, time.Now())
		b.Logf("%d pending for the failing destination, queued in %v", pending, time.Since(start).Round(time.Second))
		// One real save of acme raises an event whose delivery to d1 is
		// the model of the healthy destination's due deliveries.
		if _, err := storetest.Saves(b, s).Save(ctx, "acme", storetest.Request("acme", "", "healthy@example.com",
			record.Fields{FormCompleted: new(true)})); err != nil {
			b.Fatal(err)
		}
		mustExec(b, db, `UPDATE deliveries SET state = 'delivered' WHERE destination <> 'down'`)
		all = append(all, &backlogged{pending: pending, s: s, db: db})
	}
	// In turns, so that the shared machine's changes of speed weigh on
	// both alike.
	for range 3 {
		for _, bl := range all {
			b.Run(fmt.Sprintf("pending=%d", bl.pending), func(b *testing.B) {
				bl.batch++
				now := time.Now()
				mustExec(b, bl.db, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
					INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
						next_at, created_at, updated_at)
					SELECT printf('msg_h%d_%d', ?, i), d.event_id, d.record_id, d.client_id, d.destination, d.data_type, 'pending', 1, 0, ?, ?, ?
					FROM seq, (SELECT * FROM deliveries WHERE destination = 'd1' ORDER BY id LIMIT 1) AS d`,
					b.N*32, bl.batch, now.UnixNano(), now.UnixNano(), now.UnixNano())
				claimEach(b, bl.s, []store.DestinationRef{{ClientID: "acme", ID: "down"}})
			})
		}
	}
}

// queueBacklog adds n pending deliveries of client acme to destination
// "down", each of a record and an event of its own, its retry scheduled
// at a random time of the next 24 hours after now. Their payloads are
// filler: no claim reaches them.
func queueBacklog(b *testing.B, db *sql.DB, n int, now time.Time) {
	const chunk = 100_000
	var first int64
	if err := db.QueryRow("SELECT coalesce(max(id), 0) FROM records").Scan(&first); err != nil {
		b.Fatal(err)
	}
	for from := 0; from < n; from += chunk {
		mustExec(b, db, `WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
			INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
			SELECT 'acme', printf('b1110000-0000-4000-8000-%012x', i), 'faceScan', 'acme-main', randomblob(32), x'00', ?, ? FROM seq`,
			from, min(from+chunk, n)-1, now.UnixNano(), now.UnixNano())
	}
	mustExec(b, db, `INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
		SELECT id, funnel_id, 'non-sensitive', 'pads-score-2', created_at, x'00' FROM records WHERE id > ? ORDER BY id`, first)
	mustExec(b, db, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
			next_at, created_at, updated_at, last_error)
		SELECT 'msg_b' || id, id, record_id, 'acme', 'down', data_type, 'pending', 1, 5, ? + abs(random() % 86400000000000), created_at,
			created_at, 'http_5xx' FROM events WHERE record_id > ? ORDER BY id`, now.UnixNano(), first)
	mustExec(b, db, "PRAGMA wal_checkpoint(TRUNCATE)")
}

// openRaw opens a store in a new file and, beside it, a connection of
// its own (one at a time) to the same file: a benchmark fills its backlog
// through that far faster than through saves, and a test reads the schema
// through it. Both close with b.
func openRaw(b testing.TB) (*sqlite.Store, *sql.DB) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "pads.db")
	s, err := sqlite.Open(context.Background(), path, store.Config{Keys: storetest.Keyring(b, "e1")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return s, db
}

// claimEach times b.N claims of 32 due deliveries that skip the
// destinations in skip, and fails unless each claims all 32.
func claimEach(b *testing.B, s *sqlite.Store, skip []store.DestinationRef) {
	b.Helper()
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		now := time.Now()
		claimed, err := s.Claim(ctx, store.ClaimRequest{Owner: "bench", Now: now, LeaseUntil: now.Add(2 * time.Minute), Limit: 32, Skip: skip})
		if err != nil || len(claimed) != 32 {
			b.Fatalf("claim: %d %v", len(claimed), err)
		}
	}
}

func mustExec(b *testing.B, db *sql.DB, q string, args ...any) {
	b.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

package sqlite_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// BenchmarkClaimPastFullLines measures one claim of 32 due deliveries of
// a healthy destination while 32 destinations (of 32 clients) are full
// lines the claim skips, each with 200 or 2,000 due deliveries that come
// first. The claim that walked the due deliveries in order and filtered
// the skipped ones out grew with their backlog (2.8-8.6 ms at 200 each,
// 29-62 ms at 2,000 on the shared machine); the claim by destination
// (skippingClaim) should not. Run:
//
//	go test -run '^$' -bench ClaimPastFullLines -benchtime 300x ./internal/store/sqlite
func BenchmarkClaimPastFullLines(b *testing.B) {
	type backlogged struct {
		perDest int
		s       *sqlite.Store
		db      *sql.DB
		batch   int
	}
	var all []*backlogged
	for _, perDest := range []int{200, 2_000} {
		s, db := openRaw(b)
		n := 32*perDest + 1
		mustExec(b, db, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
			INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
			SELECT 'c', printf('b1110000-0000-4000-8000-%012x', i), 'faceScan', 'c-main', randomblob(32), x'00', i, i FROM seq`, n)
		mustExec(b, db, `INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
			SELECT id, funnel_id, 'non-sensitive', 'pads-score-2', created_at, x'00' FROM records ORDER BY id`)
		// Record 1's event is the model of the healthy deliveries; the rest
		// are the skipped destinations' backlog, due first.
		mustExec(b, db, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series,
				attempts, next_at, created_at, updated_at)
			SELECT 'msg_b' || id, id, record_id, 'bad' || (id % 32), 'hook', data_type, 'pending', 1, 0, id, id, id
			FROM events WHERE id > 1 ORDER BY id`)
		mustExec(b, db, "PRAGMA wal_checkpoint(TRUNCATE)")
		all = append(all, &backlogged{perDest: perDest, s: s, db: db})
	}
	var skip []store.DestinationRef
	for i := range 32 {
		skip = append(skip, store.DestinationRef{ClientID: fmt.Sprintf("bad%d", i), ID: "hook"})
	}
	for range 3 {
		for _, bl := range all {
			b.Run(fmt.Sprintf("due-per-skipped=%d", bl.perDest), func(b *testing.B) {
				bl.batch++
				mustExec(b, bl.db, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
					INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
						next_at, created_at, updated_at)
					SELECT printf('msg_h%d_%d', ?, i), 1, 1, 'healthy', 'hook', 'non-sensitive', 'pending', 1, 0, 1e15 + i, 1, 1 FROM seq`,
					b.N*32, bl.batch)
				claimEach(b, bl.s, skip)
			})
		}
	}
}

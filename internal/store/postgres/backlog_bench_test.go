package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// BenchmarkClaimBesideABacklog measures one claim of 32 due deliveries
// of a healthy destination while another destination, down for a day,
// has 1,000 or 1,000,000 deliveries pending, each waiting for its next
// retry (scheduled over the next 24 hours). A claim walks only the due
// end of the partial index of pending deliveries, so the backlog should
// cost it nothing. Run (with PADS_TEST_POSTGRES_URL):
//
//	go test -run '^$' -bench ClaimBesideABacklog -benchtime 2000x ./internal/store/postgres
func BenchmarkClaimBesideABacklog(b *testing.B) {
	ctx := context.Background()
	type backlogged struct {
		pending int
		s       *Store
		conn    *pgx.Conn
		batch   int
	}
	var all []*backlogged
	for _, pending := range []int{1_000, 1_000_000} {
		s, conn := openRaw(b)
		start := time.Now()
		queueBacklog(b, conn, pending, time.Now())
		b.Logf("%d pending for the failing destination, queued in %v", pending, time.Since(start).Round(time.Second))
		// One real save of acme raises an event whose delivery to d1 is
		// the model of the healthy destination's due deliveries.
		if _, err := storetest.Saves(b, s).Save(ctx, "acme", storetest.Request("acme", "", "healthy@example.com",
			record.Fields{FormCompleted: new(true)})); err != nil {
			b.Fatal(err)
		}
		execB(b, conn, `UPDATE deliveries SET state = 'delivered' WHERE destination <> 'down'`)
		all = append(all, &backlogged{pending: pending, s: s, conn: conn})
	}
	// In turns, so that the shared machine's changes of speed weigh on
	// both alike.
	for range 3 {
		for _, bl := range all {
			b.Run(fmt.Sprintf("pending=%d", bl.pending), func(b *testing.B) {
				bl.batch++
				now := time.Now().UnixNano()
				execB(b, bl.conn, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state,
						series, attempts, next_at, created_at, updated_at)
					SELECT 'msg_h' || $2::int || '_' || i, d.event_id, d.record_id, d.client_id, d.destination, d.data_type, 'pending',
						1, 0, $3, $3, $3
					FROM generate_series(1, $1::int) AS i, (SELECT * FROM deliveries WHERE destination = 'd1' ORDER BY id LIMIT 1) AS d`,
					b.N*32, bl.batch, now)
				execB(b, bl.conn, "VACUUM ANALYZE deliveries")
				b.ResetTimer()
				for range b.N {
					now := time.Now()
					claimed, err := bl.s.Claim(ctx, store.ClaimRequest{Owner: "bench", Now: now, LeaseUntil: now.Add(2 * time.Minute), Limit: 32,
						Skip: []store.DestinationRef{{ClientID: "acme", ID: "down"}}})
					if err != nil || len(claimed) != 32 {
						b.Fatalf("claim: %d %v", len(claimed), err)
					}
				}
			})
		}
	}
}

// queueBacklog adds n pending deliveries of client acme to destination
// "down", each of a record and an event of its own, its retry scheduled
// at a random time of the next 24 hours after now. Their payloads are
// filler: no claim reaches them.
func queueBacklog(b *testing.B, conn *pgx.Conn, n int, now time.Time) {
	var first int64
	if err := conn.QueryRow(context.Background(), "SELECT coalesce(max(id), 0) FROM records").Scan(&first); err != nil {
		b.Fatal(err)
	}
	execB(b, conn, `INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
		SELECT 'acme', 'b1110000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'), 'faceScan', 'acme-main',
			decode(md5('b' || i), 'hex'), '\x00'::bytea, $2, $2
		FROM generate_series(0, $1::int - 1) AS i`, n, now.UnixNano())
	execB(b, conn, `INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
		SELECT id, funnel_id, 'non-sensitive', 'pads-score-2', created_at, '\x00'::bytea FROM records WHERE id > $1 ORDER BY id`, first)
	execB(b, conn, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
			next_at, created_at, updated_at, last_error)
		SELECT 'msg_b' || id, id, record_id, 'acme', 'down', data_type, 'pending', 1, 5,
			$1 + (random() * 86400e9)::bigint, created_at, created_at, 'http_5xx'
		FROM events WHERE record_id > $2 ORDER BY id`, now.UnixNano(), first)
	execB(b, conn, "VACUUM ANALYZE records, events, deliveries")
}

package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
)

// BenchmarkClaimPastFullLines measures one claim of 32 due deliveries of
// a healthy destination while 32 destinations (of 32 clients) are full
// lines the claim skips, each with 200 or 2,000 due deliveries: the walk
// in due order (qClaimLimit, which the claim used whatever it skipped)
// against the claim that skips by destination (qClaimSkipping), in turns.
// The first grows with the skipped backlog; the second should not. Run
// (with PADS_TEST_POSTGRES_URL):
//
//	go test -run '^$' -bench ClaimPastFullLines -benchtime 300x ./internal/store/postgres
func BenchmarkClaimPastFullLines(b *testing.B) {
	ctx := context.Background()
	type backlogged struct {
		perDest int
		s       *Store
		conn    *pgx.Conn
		batch   int
	}
	var all []*backlogged
	for _, perDest := range []int{200, 2_000} {
		s, conn := openRaw(b)
		fillBacklogs(b, conn, 32, perDest)
		execB(b, conn, "DELETE FROM deliveries WHERE client_id = 'healthy' AND state = 'pending'")
		execB(b, conn, "ALTER TABLE deliveries SET (autovacuum_enabled = true)")
		all = append(all, &backlogged{perDest: perDest, s: s, conn: conn})
	}
	var skip []store.DestinationRef
	for i := range 32 {
		skip = append(skip, store.DestinationRef{ClientID: fmt.Sprintf("bad%d", i), ID: "hook"})
	}
	for range 3 {
		for _, bl := range all {
			for _, shape := range []struct {
				name string
				q    string
			}{{"walk", claimQuery(32)}, {"by-destination", claimSkippingQuery(32)}} {
				b.Run(fmt.Sprintf("due-per-skipped=%d/%s", bl.perDest, shape.name), func(b *testing.B) {
					bl.batch++
					// Due after the backlog (it came first), b.N claims' worth.
					execB(b, bl.conn, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state,
							series, attempts, next_at, created_at, updated_at)
						SELECT 'msg_h' || $2::int || '_' || i, d.event_id, d.record_id, 'healthy', 'hook', 'non-sensitive', 'pending',
							1, 0, 1e15::bigint + i, 1, 1
						FROM generate_series(1, $1::int) AS i, (SELECT * FROM deliveries WHERE id = 1) AS d`, b.N*32, bl.batch)
					execB(b, bl.conn, "VACUUM ANALYZE deliveries")
					b.ResetTimer()
					for range b.N {
						now := time.Now()
						req := store.ClaimRequest{Owner: "bench", Now: now, LeaseUntil: now.Add(2 * time.Minute), Limit: 32, Skip: skip}
						n, err := claimWith(ctx, bl.s, shape.q, req)
						if err != nil || n != 32 {
							b.Fatalf("claim: %d %v", n, err)
						}
					}
				})
			}
		}
	}
}

// claimWith runs the claim statement q as claim does (sortless, in a
// transaction of its own) and returns how many it claimed.
func claimWith(ctx context.Context, s *Store, q string, req store.ClaimRequest) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sortless); err != nil {
			return err
		}
		args := []any{req.Owner, req.LeaseUntil.UnixNano(), req.Now.UnixNano(), refs(req.Skip), refs(req.Unordered)}
		if q == claimSkippingQuery(req.Limit) {
			args = append(args, roomArgs(&req)...)
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			n++
		}
		return rows.Err()
	})
	return n, err
}

// openRaw opens a store on a new database and, beside it, a connection
// of its own: a benchmark fills its backlog through that far faster than
// through saves. Both close with b.
func openRaw(b *testing.B) (*Store, *pgx.Conn) {
	b.Helper()
	dbURL := pgtest.NewDatabase(b)
	s := openStore(b, dbURL)
	b.Cleanup(func() { s.Close() })
	return s, pgtest.Connect(b, dbURL)
}

func execB(b *testing.B, conn *pgx.Conn, q string, args ...any) {
	b.Helper()
	if _, err := conn.Exec(context.Background(), q, args...); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

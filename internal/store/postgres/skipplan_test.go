package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestAClaimReadsNoneOfTheSkippedBacklog runs the claim pads makes while
// 32 destinations (of 32 clients) are full lines, each with 2,000 due
// deliveries, beside a healthy destination with 2,000 due of its own and
// 100,000 delivered, under EXPLAIN ANALYZE, with the tables never
// analyzed, analyzed, and analyzed while none was pending, and generic
// and custom plans forced. It fails when the claim reads more than a few
// rows per destination: the claim that walked the due deliveries in
// order read the skipped ones' 64,000 first, each claim, inside the
// writer's transaction (a healthy destination's save-to-2xx p99 went
// from 0.21 s to 2.05 s with 32 hanging destinations on PostgreSQL).
func TestAClaimReadsNoneOfTheSkippedBacklog(t *testing.T) {
	conn := planConn(t, "166,000 deliveries")
	fillBacklogs(t, conn, 32, 2_000)
	var skipped []string
	for i := range 32 {
		skipped = append(skipped, fmt.Sprintf("'bad%d/hook'", i))
	}
	args := fmt.Sprintf("'p', 9e18::bigint, 5e18::bigint, ARRAY[%s], '{}'::text[]", strings.Join(skipped, ", "))
	rooms := ", '{}'::text[], '{}'::int[], 32" // the walk takes none
	// Per claim of 32: a step down the index per destination (33), the
	// healthy one's first (1), its 32 and their per-record probes (64),
	// the lock (32) and the update's joins (96).
	const most = 260
	n := 0
	forEachPlanSetting(t, conn, "id > 100000", func(stats, mode string) {
		n++
		name := fmt.Sprintf("skipping%d", n)
		exec(t, conn, "PREPARE "+name+" AS "+claimSkippingQuery(32))
		exec(t, conn, "PREPARE "+name+"_walk AS "+claimQuery(32))
		read, plan := rowsRead(t, conn, true, "EXECUTE "+name+"("+args+rooms+")")
		walked, _ := rowsRead(t, conn, true, "EXECUTE "+name+"_walk("+args+")")
		t.Logf("%s, %s: the claim read %d rows; the walk in due order would read %d", stats, mode, read, walked)
		if read > most {
			t.Errorf("claim skipping 32 full lines (%s, %s): read %d rows, want at most %d:\n%s", stats, mode, read, most, plan)
		}
		if !strings.Contains(plan, "rows 32,") {
			t.Errorf("claim skipping 32 full lines (%s, %s) claimed other than 32:\n%s", stats, mode, plan)
		}
	})
}

// fillBacklogs makes, with autovacuum off, 100,000 delivered deliveries of
// client healthy's destination hook, then perDest due ones to each of
// bads destinations (client badN's hook), interleaved, then perDest due
// ones to healthy's hook, due after them: each its own record and event.
func fillBacklogs(t testing.TB, conn *pgx.Conn, bads, perDest int) {
	t.Helper()
	exec(t, conn, `ALTER TABLE records SET (autovacuum_enabled = false);
		ALTER TABLE events SET (autovacuum_enabled = false);
		ALTER TABLE deliveries SET (autovacuum_enabled = false)`)
	total := 100_000 + (bads+1)*perDest
	exec(t, conn, fmt.Sprintf(`INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
		SELECT 'c', lpad(i::text, 8, '0') || '-0000-4000-8000-000000000000', 'faceScan', 'f', decode(md5('e' || i), 'hex'), '\x00'::bytea, i, i
		FROM generate_series(1, %d) AS i`, total))
	exec(t, conn, `INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
		SELECT id, 'f', 'non-sensitive', 'pads-score-2', id, '\x00'::bytea FROM records ORDER BY id`)
	exec(t, conn, fmt.Sprintf(`INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
			next_at, created_at, updated_at)
		SELECT 'msg_' || id, id, record_id,
			CASE WHEN id <= 100000 OR id > %[1]d THEN 'healthy' ELSE 'bad' || (id %% %[2]d) END, 'hook', 'non-sensitive',
			CASE WHEN id <= 100000 THEN 'delivered' ELSE 'pending' END, 1, 0, id, id, id
		FROM events ORDER BY id`, 100_000+bads*perDest, bads))
}

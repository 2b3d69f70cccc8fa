package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// planRecords is how many records (each with an event and a delivery) the
// plan test puts in the tables: enough that a walk of a client's records,
// instead of an index probe, cannot pass for one.
const planRecords = 100_000

// TestEveryLookupIsAnIndexProbe runs each statement of a save, a claim and
// a finish under EXPLAIN ANALYZE on tables of 100,000 records of one
// client, with the tables never analyzed, analyzed, and analyzed while no
// delivery was pending, and with generic and custom plans forced, and
// fails when one reads more than a handful of rows. A generic plan made
// while the tables were empty once answered key lookups by walking the
// email index: every save read all of its client's records. Statistics
// that said no delivery was pending once made a claim read every pending
// delivery for each one it looked at.
func TestEveryLookupIsAnIndexProbe(t *testing.T) {
	conn := planConn(t, "100,000 records")
	fill(t, conn)

	uuid := func(i int) string { return fmt.Sprintf("'%s'", planUUID(i)) }
	email := func(i int) string { return fmt.Sprintf("ARRAY[decode(md5('e%d'), 'hex')]::bytea[]", i) }
	row := `'acme', %s, 'faceScan', 'acme-main', decode(md5('e1'), 'hex'), '\x00'::bytea, 1, 2, NULL, NULL`
	cases := []struct {
		name, sql, args string
		most            int  // rows the statement may read
		sortless        bool // run as the store runs it, with sorts off
	}{
		{"find by key, found", qFindByKey, "'acme', " + uuid(77) + ", 'faceScan'", 1, false},
		{"find by key, none (a create)", qFindByKey, "'acme', " + uuid(-1) + ", 'faceScan'", 0, false},
		{"find by email, found", qFindByEmail, "'acme', 'faceScan', " + email(77), 1, false},
		{"find by email, none", qFindByEmail, "'acme', 'faceScan', " + email(-1), 0, false},
		{"commit: version by email", qVersionByEmail, "'acme', 'faceScan', " + email(77), 1, false},
		{"commit: insert a record", qInsertRecord, fmt.Sprintf(row, uuid(-1)), 0, false},
		{"commit: insert an existing key", qInsertRecord, fmt.Sprintf(row, uuid(77)), 0, false},
		{"commit: update", qUpdateRecord, "'acme-main', decode(md5('e2'), 'hex'), '\\x00'::bytea, 3, NULL, NULL, 'acme', " + uuid(77) + ", 'faceScan', 1", 1, false},
		{"commit: update keeping the email", qRewriteRecord, "'acme-main', '\\x00'::bytea, 3, NULL, NULL, 'acme', " + uuid(77) + ", 'faceScan', 1", 1, false},
		{"claim ten", claimQuery(10), "'p', 9e18::bigint, 5e18::bigint, ARRAY['acme/staging-1'], '{}'::text[]", 50, true},
		{"claim ten, skipping", claimSkippingQuery(10), "'p', 9e18::bigint, 5e18::bigint, ARRAY['acme/staging-1'], '{}'::text[], '{}'::text[], '{}'::int[], 10", 80, true},
		{"claim ten, five at most to production-1", claimSkippingQuery(10), "'p', 9e18::bigint, 5e18::bigint, '{}'::text[], '{}'::text[], ARRAY['acme/production-1'], ARRAY[5], 10", 80, true},
		{"next due", qNextDue, "5e18::bigint", 1, true},
		{"finish", qFinish, "'delivered', 1, 0, 3, NULL, 100, 'p', 1", 1, false},
	}
	n := 0
	forEachPlanSetting(t, conn, "id % 100 IN (0, 1)", func(stats, mode string) {
		for _, c := range cases {
			n++
			name := fmt.Sprintf("q%d", n)
			exec(t, conn, "PREPARE "+name+" AS "+c.sql)
			read, plan := rowsRead(t, conn, c.sortless, "EXECUTE "+name+"("+c.args+")")
			if read > c.most {
				t.Errorf("%s (%s, %s): read %d rows, want at most %d:\n%s", c.name, stats, mode, read, c.most, plan)
			}
		}
	})
}

// forEachPlanSetting calls run under each planner setting a plan test
// covers: the tables never analyzed, analyzed, and analyzed while no
// delivery was pending (pending, the condition of the deliveries that are
// pending again afterwards), each with generic and with custom plans
// forced. A plan made under any of them has once read a whole table.
func forEachPlanSetting(t *testing.T, conn *pgx.Conn, pending string, run func(stats, mode string)) {
	t.Helper()
	for _, stats := range []string{"never analyzed", "analyzed", "analyzed while none was pending"} {
		switch stats {
		case "analyzed":
			exec(t, conn, "ANALYZE records, events, deliveries")
		case "analyzed while none was pending":
			exec(t, conn, "UPDATE deliveries SET state = 'delivered' WHERE state = 'pending'")
			exec(t, conn, "ANALYZE deliveries")
			exec(t, conn, "UPDATE deliveries SET state = 'pending' WHERE "+pending)
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			exec(t, conn, "SET plan_cache_mode = "+mode)
			run(stats, mode)
		}
	}
}

// planUUID is the uuid of the i-th record fill makes; no record has a
// negative number.
func planUUID(i int) string {
	if i < 0 {
		return "ffffffff-0000-4000-8000-000000000000"
	}
	return fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
}

// fill makes planRecords records of client acme, an event each and a
// delivery each (1% pending and due, 1% pending later, the rest
// delivered), with autovacuum off so that the tables stay never analyzed
// until the test analyzes them.
func fill(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	exec(t, conn, `ALTER TABLE records SET (autovacuum_enabled = false);
		ALTER TABLE events SET (autovacuum_enabled = false);
		ALTER TABLE deliveries SET (autovacuum_enabled = false)`)
	exec(t, conn, fmt.Sprintf(`INSERT INTO records (client_id, patient_uuid, assessment_type, funnel_id, email_index, sealed, created_at, updated_at)
		SELECT 'acme', lpad(i::text, 8, '0') || '-0000-4000-8000-000000000000', 'faceScan', 'acme-main',
			decode(md5('e' || i), 'hex'), '\x00'::bytea, i, i FROM generate_series(0, %d) AS i`, planRecords-1))
	exec(t, conn, `INSERT INTO events (record_id, funnel_id, data_type, model, created_at, payload)
		SELECT id, 'acme-main', 'non-sensitive', 'pads-score-2', id, '\x00'::bytea FROM records`)
	exec(t, conn, `INSERT INTO deliveries (message_id, event_id, record_id, client_id, destination, data_type, state, series, attempts,
		next_at, created_at, updated_at, lease_owner)
		SELECT 'msg_' || id, id, record_id, 'acme', 'production-1', 'non-sensitive',
			CASE WHEN id % 100 IN (0, 1) THEN 'pending' ELSE 'delivered' END, 1, 1,
			CASE WHEN id % 100 = 1 THEN 9e18::bigint ELSE id END, id, id, CASE WHEN id = 100 THEN 'p' END FROM events`)
}

// planConn is a plan test's connection to a database of its own at the
// current schema (the store that made it is closed: the test works on
// the connection). The test runs in parallel, and not under -short: it
// fills tables with fills.
func planConn(t *testing.T, fills string) *pgx.Conn {
	t.Helper()
	if testing.Short() {
		t.Skip("fills tables with " + fills)
	}
	dbURL := pgtest.NewDatabase(t)
	t.Parallel()
	openStore(t, dbURL).Close()
	return pgtest.Connect(t, dbURL)
}

// openStore opens the store at dbURL, migrating its schema; the caller
// closes it.
func openStore(tb testing.TB, dbURL string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), dbURL, store.Config{Keys: storetest.Keyring(tb, "e1")})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func exec(t testing.TB, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// rowsRead runs statement under EXPLAIN ANALYZE in a transaction it rolls
// back, with sorts off if sortsOff, and returns the table rows its scans
// read (returned or filtered out, over every loop) and the plan.
func rowsRead(t *testing.T, conn *pgx.Conn, sortsOff bool, statement string) (int, string) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if sortsOff {
		if _, err := tx.Exec(ctx, sortless); err != nil {
			t.Fatal(err)
		}
	}
	var out string
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+statement).Scan(&out); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
	var doc []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	n := doc[0].Plan.read(&b, "")
	return n, b.String()
}

type planNode struct {
	NodeType      string     `json:"Node Type"`
	IndexName     string     `json:"Index Name"`
	RelationName  string     `json:"Relation Name"`
	ActualRows    float64    `json:"Actual Rows"`
	ActualLoops   float64    `json:"Actual Loops"`
	RemovedFilter float64    `json:"Rows Removed by Filter"`
	RemovedCheck  float64    `json:"Rows Removed by Index Recheck"`
	Plans         []planNode `json:"Plans"`
}

// read sums the table rows read by the scans of the plan under n, and
// writes the plan to b.
func (n planNode) read(b *strings.Builder, indent string) int {
	fmt.Fprintf(b, "%s%s %s %s: rows %.0f, removed %.0f, loops %.0f\n", indent, n.NodeType, n.RelationName, n.IndexName,
		n.ActualRows, n.RemovedFilter+n.RemovedCheck, n.ActualLoops)
	total := 0
	switch n.NodeType {
	case "Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Tid Scan":
		total = int((n.ActualRows + n.RemovedFilter + n.RemovedCheck) * n.ActualLoops)
	}
	for _, c := range n.Plans {
		total += c.read(b, indent+"  ")
	}
	return total
}

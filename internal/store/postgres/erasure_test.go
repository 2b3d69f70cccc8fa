package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/store/sqlstore"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestErasureAndCleanupLeaveNoneOfThePatientsBytes: after an erasure and
// the documented cleanup (VACUUM FULL of the four tables, then a
// checkpoint), none of the erased patient's sealed bytes is in any file of
// those tables, their TOAST tables or their indexes (read with
// pg_read_binary_file, as the server's superuser).
func TestErasureAndCleanupLeaveNoneOfThePatientsBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, conn := openWithConn(t)
	raw := func(q string, args ...any) [][]byte {
		rows, err := conn.Query(ctx, sqlstore.Rebind(q), args...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cleanup := func() {
		for _, q := range []string{"VACUUM (FULL) records, events, deliveries, attempts", "CHECKPOINT"} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	files := func() []byte {
		// Every relation of the four tables: heap, TOAST heap and index,
		// and indexes.
		rows, err := conn.Query(ctx, `SELECT c.oid FROM pg_class c WHERE c.oid IN (
				SELECT oid FROM pg_class WHERE relname IN ('records', 'events', 'deliveries', 'attempts')
				UNION SELECT reltoastrelid FROM pg_class WHERE relname IN ('records', 'events', 'deliveries', 'attempts')
				UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM pg_class
					WHERE relname IN ('records', 'events', 'deliveries', 'attempts')
					UNION SELECT reltoastrelid FROM pg_class WHERE relname IN ('records', 'events', 'deliveries', 'attempts')))
			AND c.relnamespace = 'public'::regnamespace OR c.relnamespace = 'pg_toast'::regnamespace AND c.oid IN (
				SELECT reltoastrelid FROM pg_class WHERE relname IN ('records', 'events', 'deliveries', 'attempts')
				UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT reltoastrelid FROM pg_class
					WHERE relname IN ('records', 'events', 'deliveries', 'attempts')))`)
		if err != nil {
			t.Fatal(err)
		}
		oids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
		if err != nil {
			t.Fatal(err)
		}
		if len(oids) < 10 {
			t.Fatalf("found %d relations: the scan would miss some", len(oids))
		}
		var all []byte
		for _, oid := range oids {
			var b []byte
			// Each relation here is one segment (under 1 GiB).
			if err := conn.QueryRow(ctx, "SELECT pg_read_binary_file(pg_relation_filepath($1::oid))", oid).Scan(&b); err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		return all
	}
	storetest.ErasureLeavesNoBytes(t, s, raw, cleanup, files)
}

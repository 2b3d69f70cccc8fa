package sqlite_test

import (
	"database/sql"
	"testing"
)

// TestEveryForeignKeyHasAnIndex: deleting a parent row (an erasure, a
// retention sweep) makes SQLite look for its children by the foreign key's
// column; without a whole index leading with that column (a partial one
// does not serve the check) each delete scans the child table, on the
// writer, behind the saves. Dropping such an index once stalled the
// retention soak's saves for seconds.
func TestEveryForeignKeyHasAnIndex(t *testing.T) {
	t.Parallel()
	_, db := openRaw(t)
	tables := column(t, db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
	checked := 0
	for _, table := range tables {
		for _, from := range column(t, db, "SELECT \"from\" FROM pragma_foreign_key_list(?)", table) {
			checked++
			leading := column(t, db, `SELECT i.name FROM pragma_index_list(?1) i
				JOIN pragma_index_info(i.name) c ON c.seqno = 0 WHERE i.partial = 0 AND c.name = ?2`, table, from)
			if len(leading) == 0 {
				t.Errorf("%s.%s is a foreign key with no whole index leading with it", table, from)
			}
		}
	}
	if checked < 3 { // events.record_id, deliveries.event_id and record_id, attempts.delivery_id
		t.Fatalf("checked %d foreign keys: the schema query found too few", checked)
	}
}

// column returns the first column of q's rows.
func column(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// TestErasureLeavesNoneOfThePatientsBytes: after an erasure, none of the
// erased patient's sealed bytes (every version of the record, its blind
// index, bodies and answers) is in pads.db or pads.db-wal: secure_delete
// zeroed them and the erasure's checkpoint truncated the WAL; nor in a
// backup (pads backup) taken after it.
func TestErasureLeavesNoneOfThePatientsBytes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pads.db")
	s, err := sqlite.Open(context.Background(), path, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw := func(q string, args ...any) [][]byte {
		rows, err := db.Query(q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]byte
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	files := func() []byte {
		// A backup taken after the erasure follows the same rules.
		if err := s.Backup(context.Background(), backup); err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, name := range []string{path, path + "-wal", backup} {
			b, err := os.ReadFile(name)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		return all
	}
	storetest.ErasureLeavesNoBytes(t, s, raw, func() {}, files)
}

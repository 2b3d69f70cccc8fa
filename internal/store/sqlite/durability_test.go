package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// A 2xx promises a save is on disk: the writer must commit in WAL mode with
// synchronous=FULL, through SQLite's own VFS, so that each COMMIT syncs the
// WAL before it returns and before readers can see it.
func TestTheWriterCommitsWithFullSyncInWALMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var sync int
	var mode string
	err = s.w.do(ctx, func(ctx context.Context, t *tx) error {
		if err := t.conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			return err
		}
		return t.conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	if sync != 2 || mode != "wal" {
		t.Fatalf("writer: synchronous=%d journal_mode=%s, want 2 (FULL) and wal", sync, mode)
	}
}

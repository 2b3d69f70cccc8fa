package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pads-dev/pads/internal/store"
)

// Backup writes a consistent copy of the database to path while saves go
// on: SQLite's VACUUM INTO reads one snapshot (a read transaction, which
// never blocks the writer) and writes it as a compact database file of its
// own, with no WAL to carry along. The copy is written beside path first,
// synced, then renamed to path, so path is either absent or whole; it is
// created 0600. path must not exist.
//
// Its records are sealed as in the database: the copy opens only with the
// same encryption keys.
func (s *Store) Backup(ctx context.Context, path string) (err error) {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if strings.ContainsAny(path, "?#") {
		return fmt.Errorf("backup: %q: a file name without ? or #", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("backup: %s exists: name a new file", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	// VACUUM INTO writes into an empty file as it finds it: made here,
	// private, it keeps its mode.
	partial := path + ".partial"
	f, err := os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(partial)
		}
	}()
	// A connection of its own, not one of the query-only readers (SQLite
	// counts writing the copy as a write): the copy may take a while, and
	// holds one read snapshot throughout.
	db, err := sql.Open("sqlite", dsn(s.path, false))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", partial); err != nil {
		return fmt.Errorf("backup: %w", storeError(err))
	}
	if err := syncFile(partial); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(partial, path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncFile(filepath.Dir(path)); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// syncFile flushes a file, or a directory's entries, to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

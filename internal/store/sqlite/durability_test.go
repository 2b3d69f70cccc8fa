package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlstore"
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
	s.w.pause.Lock() // the writer waits between two batches
	err = s.w.conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync)
	if err == nil {
		err = s.w.conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	}
	s.w.pause.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if sync != 2 || mode != "wal" {
		t.Fatalf("writer: synchronous=%d journal_mode=%s, want 2 (FULL) and wal", sync, mode)
	}
}

// A database that cannot grow (here: a page limit, as a full disk would)
// answers saves with store.ErrUnavailable, writes nothing, and takes saves
// again once there is room, without a reopen.
func TestAFullDatabaseIsUnavailableUntilThereIsRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	limit := func(pages string) {
		if _, err := s.w.Write(ctx, sqlstore.Stmt{SQL: "PRAGMA max_page_count = " + pages}); err != nil {
			t.Fatal(err)
		}
	}
	var pages int
	if err := s.readDB.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	limit(strconv.Itoa(pages + 1))
	saves := storetest.Saves(t, s)
	var full error
	var n int
	for n = 0; n < 1000 && full == nil; n++ {
		_, full = saves.Save(ctx, "acme", storetest.Request("acme", "", fmt.Sprintf("p%d@example.com", n),
			record.Fields{City: new(strings.Repeat("x", 90))}))
	}
	if !errors.Is(full, store.ErrUnavailable) {
		t.Fatalf("after %d saves into a full database: %v, want ErrUnavailable", n, full)
	}
	if !s.w.noRoom.Load() {
		t.Fatal("the writer must remember that the last write found no room (Ping reports it)")
	}
	limit("1073741823")
	if _, err := saves.Save(ctx, "acme", storetest.Request("acme", "", "later@example.com", record.Fields{})); err != nil {
		t.Fatalf("a save once there is room again: %v", err)
	}
	if s.w.noRoom.Load() {
		t.Fatal("a save that commits says there is room again")
	}
	// With no save coming (a load balancer stops sending them while
	// /readyz fails), Ping's own write finds the room.
	s.w.noRoom.Store(true)
	if err := s.Ping(ctx); err != nil || s.w.noRoom.Load() {
		t.Fatalf("Ping with room again: %v, still short of room: %v", err, s.w.noRoom.Load())
	}
}

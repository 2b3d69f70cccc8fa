package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// walStats returns what SQLite asked the WAL file at path to write, and
// what walVFS wrote, summed over the file's open handles.
func walStats(path string) (asked, wrote int64, found bool) {
	walFiles.Range(func(_, v any) bool {
		if f := v.(*walFile); f.name == path {
			asked += f.asked.Load()
			wrote += f.wrote.Load()
			found = true
		}
		return true
	})
	return asked, wrote, found
}

func TestWALWritesAreGatheredPerCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	s, err := Open(ctx, path, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saveConcurrently(t, s, 32, 20, nil)
	asked, wrote, found := walStats(path + "-wal")
	if !found {
		t.Fatal("the writer's WAL is not opened through walVFS")
	}
	// Each frame is two writes SQLite asks for; a commit's frames go out
	// together, so there are far fewer real writes than asked ones.
	if asked < 640 || wrote*4 > asked {
		t.Errorf("SQLite asked for %d WAL writes and %d were made; want at least 640 asked, a quarter as many made", asked, wrote)
	}
	t.Logf("640 saves: %d WAL writes asked, %d made", asked, wrote)
}

// saveConcurrently runs goroutines goroutines saving each walSave records,
// and calls saved, if set, after each save.
func saveConcurrently(t *testing.T, s *Store, goroutines, each int, saved func(store.SaveRequest)) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				req := walSave(g, i)
				if _, err := s.Save(context.Background(), req); err != nil {
					t.Error(err)
					return
				}
				if saved != nil {
					saved(req)
				}
			}
		})
	}
	wg.Wait()
}

// openRaw opens path with walVFS, as the writer does, with a page cache of
// a few pages, so that a large transaction spills frames into the WAL and
// reads them back before it commits.
func openRaw(t *testing.T, path, extra string) *sql.DB {
	t.Helper()
	if err := registerWALVFS(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path, false)+"&vfs="+walVFS+extra)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func blob(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8), 0x5a}, 700) }

func TestWALVFSReadsBackUnsyncedFramesAndUndoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "raw.db")
	db := openRaw(t, path, "&_pragma=cache_size(10)")
	mustExec(t, db, "CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)")

	// 3,000 rows of 2 KiB in one transaction: more than the cache holds
	// and more than walFlushAt, so frames are spilled, buffered, flushed
	// early and read back before the commit.
	inTx(t, db, 0, 3000, func(tx *sql.Tx) error {
		if asked, wrote, _ := walStats(path + "-wal"); asked == 0 || wrote == 0 {
			t.Fatalf("nothing spilled to the WAL before the commit (%d writes asked, %d made)", asked, wrote)
		}
		checkRows(t, tx, 3000)
		return tx.Commit()
	})
	// A spilled transaction rolled back: its frames are written over.
	inTx(t, db, 3000, 2000, func(tx *sql.Tx) error {
		checkRows(t, tx, 5000)
		return tx.Rollback()
	})
	inTx(t, db, 3000, 500, (*sql.Tx).Commit)

	// Another connection, through the plain unix VFS, sees exactly the
	// committed rows, and the database is sound.
	plain, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	checkRows(t, plain, 3500)
	var ok string
	if err := plain.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
}

// inTx inserts rows from..from+n-1 in a transaction of db, then ends it
// with end.
func inTx(t *testing.T, db *sql.DB, from, n int, end func(*sql.Tx) error) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		if _, err := tx.Exec("INSERT INTO t (id, b) VALUES (?, ?)", i, blob(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := end(tx); err != nil {
		t.Fatal(err)
	}
}

type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// checkRows checks that q sees rows 0..n-1 with their blobs.
func checkRows(t *testing.T, q querier, n int) {
	t.Helper()
	ctx := context.Background()
	var count, size int
	if err := q.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(length(b)), 0) FROM t").Scan(&count, &size); err != nil {
		t.Fatal(err)
	}
	if count != n || size != n*2100 {
		t.Fatalf("%d rows of %d bytes in all, want %d of %d", count, size, n, n*2100)
	}
	for _, i := range []int{0, n / 3, n - 1} {
		var b []byte
		if err := q.QueryRowContext(ctx, "SELECT b FROM t WHERE id = ?", i).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, blob(i)) {
			t.Fatalf("row %d reads back wrong", i)
		}
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func TestWriterRefusesCommitsThatDoNotSync(t *testing.T) {
	for _, tc := range []struct {
		mode string
		ok   bool
	}{{"OFF", false}, {"NORMAL", false}, {"FULL", true}, {"EXTRA", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			db := openRaw(t, filepath.Join(t.TempDir(), "raw.db"), "&_pragma=synchronous("+tc.mode+")")
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := checkFullSync(context.Background(), conn); (err == nil) != tc.ok {
				t.Fatalf("synchronous=%s: checkFullSync = %v, want accepted %v", tc.mode, err, tc.ok)
			}
		})
	}
}

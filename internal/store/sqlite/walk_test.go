package sqlite_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	msqlite "modernc.org/sqlite"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// insertWalk holds the pads frames on the stack of the last INSERT into
// records that the pads_walk trigger saw, innermost first.
var insertWalk struct {
	sync.Mutex
	frames []string
}

func init() {
	// Called by a trigger inside the INSERT: the stack is the writer's
	// at the statement.
	msqlite.MustRegisterScalarFunction("pads_walk", 0, func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		pcs := make([]uintptr, 64)
		frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
		var walk []string
		for {
			f, more := frames.Next()
			if strings.HasPrefix(f.Function, "github.com/pads-dev/pads/") && !strings.Contains(f.Function, "sqlite_test.") {
				walk = append(walk, strings.TrimPrefix(f.Function, "github.com/pads-dev/pads/internal/store/"))
			}
			if !more {
				break
			}
		}
		insertWalk.Lock()
		insertWalk.frames = walk
		insertWalk.Unlock()
		return nil, nil
	})
}

// On the writer's goroutine a save goes from the writer loop to its
// INSERT through four frames of this package (docs/architecture.md): a
// deeper walk, or one through another package, is a change of the write
// path's shape, to be made on purpose.
func TestASavesWalkFromTheWriterLoopToItsInsertIsFourFrames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pads.db")
	s, err := sqlite.Open(ctx, path, store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TRIGGER walk AFTER INSERT ON records BEGIN SELECT pads_walk(); END"); err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.Saves(t, s).Save(ctx, "acme", storetest.Request("acme", "", "walk@example.org", record.Fields{})); err != nil {
		t.Fatal(err)
	}
	insertWalk.Lock()
	defer insertWalk.Unlock()
	want := []string{"sqlite.(*tx).writeCommit", "sqlite.(*writer).try", "sqlite.(*writer).commit", "sqlite.(*writer).run"}
	if !slices.Equal(insertWalk.frames, want) {
		t.Fatalf("the walk to the INSERT is %q, want %q", insertWalk.frames, want)
	}
}

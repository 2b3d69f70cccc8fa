package postgres

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/postgres/pgtest"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// walkTracer records the pads frames on the stack of the batch that
// inserts a record, innermost first: pgx calls it inside SendBatch, on
// the writer loop's goroutine.
type walkTracer struct {
	mu     sync.Mutex
	frames []string
}

func (w *walkTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (w *walkTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData)     {}
func (w *walkTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (w *walkTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (w *walkTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	if len(d.Batch.QueuedQueries) == 0 || d.Batch.QueuedQueries[0].SQL != qInsertRecord {
		return ctx
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var walk []string
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/pads-dev/pads/") && !strings.Contains(f.Function, "walkTracer") {
			walk = append(walk, strings.TrimPrefix(f.Function, "github.com/pads-dev/pads/internal/store/"))
		}
		if !more {
			break
		}
	}
	w.mu.Lock()
	w.frames = walk
	w.mu.Unlock()
	return ctx
}

// On a writer loop's goroutine a save goes from the loop to the batch
// that inserts its record through four frames of this package
// (docs/architecture.md): a deeper walk, or one through another package,
// is a change of the write path's shape, to be made on purpose.
func TestASavesWalkFromTheWriterLoopToItsInsertIsFourFrames(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(t), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	<-s.keys.Filled() // its fill reads the pool swapped below
	// The loops are idle, waiting for work: they take the traced pool
	// with the first op, through the queue's channel.
	tracer := &walkTracer{}
	pc := s.pool.Config().Copy()
	pc.ConnConfig.Tracer = tracer
	traced, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	s.pool.Close()
	s.pool = traced
	if _, err := storetest.Saves(t, s).Save(ctx, "acme", storetest.Request("acme", "", "walk@example.org", record.Fields{})); err != nil {
		t.Fatal(err)
	}
	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	want := []string{"postgres.writeCommits", "postgres.(*Store).try", "postgres.(*Store).commit", "postgres.(*Store).run"}
	if !slices.Equal(tracer.frames, want) {
		t.Fatalf("the walk to the INSERT is %q, want %q", tracer.frames, want)
	}
}

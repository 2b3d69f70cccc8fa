package groupcommit_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/pads-dev/pads/internal/store/groupcommit"
)

// fakeDB stands for a database: a transaction is a list of values, and a
// commit appends it to what is committed. An op's work appends to the
// transaction in hand.
type fakeDB struct {
	mu        sync.Mutex
	committed []string
	batches   []int
	failTx    error // the next transaction's commit fails with it
}

type tx struct{ values []string }

func (db *fakeDB) commit(batch []*groupcommit.Op[*tx]) {
	groupcommit.CommitWithRetry(batch, func(ops []*groupcommit.Op[*tx]) (int, error) {
		t := &tx{}
		for i, o := range ops {
			if err := o.Run(context.Background(), t); err != nil {
				return i, err // rolled back: t is dropped
			}
		}
		db.mu.Lock()
		defer db.mu.Unlock()
		if err := db.failTx; err != nil {
			db.failTx = nil
			return -1, err
		}
		db.committed = append(db.committed, t.values...)
		db.batches = append(db.batches, len(ops))
		return -1, nil
	})
}

func (db *fakeDB) has(v string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, c := range db.committed {
		if c == v {
			return true
		}
	}
	return false
}

func start(t *testing.T) (*fakeDB, *groupcommit.Batcher[*tx]) {
	db := &fakeDB{}
	b := groupcommit.New(1, 8, db.commit, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(b.Stop)
	return db, b
}

func write(v string) func(context.Context, *tx) error {
	return func(_ context.Context, t *tx) error { t.values = append(t.values, v); return nil }
}

func TestEveryAnsweredOpIsCommitted(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	var wg sync.WaitGroup
	for i := range 100 {
		v := string(rune('A'+i%26)) + string(rune('a'+i/26))
		wg.Go(func() {
			if err := b.Save(context.Background(), write(v)); err != nil {
				t.Error(err)
				return
			}
			if !db.has(v) {
				t.Errorf("%s answered before its commit", v)
			}
		})
	}
	wg.Wait()
	if len(db.batches) == 100 {
		t.Log("no two ops shared a transaction; batching was not exercised on this run")
	}
}

func TestAFailedOpFailsAloneAndLeavesNothing(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	bad := errors.New("rejected")
	err := b.Do(context.Background(), func(_ context.Context, t *tx) error {
		t.values = append(t.values, "half-written")
		return bad
	})
	if !errors.Is(err, bad) {
		t.Fatalf("failed op answered with %v, want its own error", err)
	}
	if err := b.Do(context.Background(), write("good")); err != nil {
		t.Fatal(err)
	}
	if db.has("half-written") || !db.has("good") {
		t.Fatalf("committed %v: want the good op only", db.committed)
	}
}

func TestAPanicFailsOnlyItsOp(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Go(func() {
			if i == 7 {
				errs[i] = b.Do(context.Background(), func(context.Context, *tx) error { panic("boom") })
				return
			}
			errs[i] = b.Do(context.Background(), write(string(rune('a'+i))))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i == 7) != (err != nil) {
			t.Fatalf("op %d answered %v", i, err)
		}
	}
	if len(db.committed) != 19 {
		t.Fatalf("committed %d ops, want the 19 that did not panic", len(db.committed))
	}
}

func TestAFailedTransactionFailsItsOps(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	db.failTx = errors.New("disk full")
	if err := b.Do(context.Background(), write("a")); err == nil || db.has("a") {
		t.Fatalf("op of a failed transaction answered %v", err)
	}
	// The next transaction is not affected: the batcher keeps working.
	if err := b.Do(context.Background(), write("b")); err != nil || !db.has("b") {
		t.Fatalf("op after a failed transaction: %v", err)
	}
}

func TestStopCommitsWhatIsQueuedThenRefuses(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered := map[string]error{}
	for i := range 50 {
		v := string(rune('a'+i%26)) + string(rune('A'+i/26))
		wg.Go(func() {
			err := b.Do(context.Background(), write(v))
			mu.Lock()
			answered[v] = err
			mu.Unlock()
		})
	}
	b.Stop()
	wg.Wait()
	for v, err := range answered {
		switch {
		case err == nil && !db.has(v):
			t.Fatalf("%s answered ok but not committed", v)
		case err != nil && !errors.Is(err, groupcommit.ErrClosed):
			t.Fatalf("%s during Stop: %v", v, err)
		case err != nil && db.has(v):
			t.Fatalf("%s committed but answered %v", v, err)
		}
	}
	if err := b.Do(context.Background(), write("late")); !errors.Is(err, groupcommit.ErrClosed) {
		t.Fatalf("op after Stop: %v, want ErrClosed", err)
	}
}

func TestAnOpWhoseCallerLeftDoesNotRun(t *testing.T) {
	t.Parallel()
	db, b := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Do(ctx, write("gone")); !errors.Is(err, context.Canceled) {
		t.Fatalf("op with a cancelled context: %v", err)
	}
	if db.has("gone") {
		t.Fatal("an op whose caller had left was committed")
	}
}

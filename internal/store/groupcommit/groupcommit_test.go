package groupcommit_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/pads-dev/pads/internal/store/groupcommit"
)

// write is a typed op of the fake database: a value to commit, or a
// value it refuses.
type write struct {
	value  string
	refuse bool
}

// fakeDB stands for a driver: one writer loop that commits each batch by
// appending its values, failing the ops it refuses alone.
type fakeDB struct {
	q         *groupcommit.Queue[*write]
	mu        sync.Mutex
	committed []string
	batches   []int
	gate      chan struct{} // when set, each commit waits for a receive
}

func start(t *testing.T, gate chan struct{}) *fakeDB {
	db := &fakeDB{q: groupcommit.New[*write](1, 64), gate: gate}
	go db.run()
	t.Cleanup(db.q.Stop)
	return db
}

func (db *fakeDB) run() {
	var batch []*groupcommit.Request[*write]
	for {
		var ok bool
		if batch, ok = db.q.Next(batch, 8); !ok {
			return
		}
		if db.gate != nil {
			<-db.gate
		}
		db.mu.Lock()
		db.batches = append(db.batches, len(batch))
		for _, r := range batch {
			if r.Op.refuse {
				r.Fail(errors.New("refused"))
				continue
			}
			db.committed = append(db.committed, r.Op.value)
		}
		db.mu.Unlock()
		db.q.Answer(batch)
	}
}

func (db *fakeDB) has(v string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Contains(db.committed, v)
}

func TestEveryAnsweredOpIsCommitted(t *testing.T) {
	t.Parallel()
	db := start(t, nil)
	var wg sync.WaitGroup
	for i := range 100 {
		v := string(rune('A'+i%26)) + string(rune('a'+i/26))
		wg.Go(func() {
			if err := db.q.Do(context.Background(), &write{value: v}); err != nil {
				t.Error(err)
				return
			}
			if !db.has(v) {
				t.Errorf("%s answered before its commit", v)
			}
		})
	}
	wg.Wait()
}

func TestAFailedOpIsAnsweredWithItsErrorAlone(t *testing.T) {
	t.Parallel()
	db := start(t, nil)
	if err := db.q.Do(context.Background(), &write{value: "bad", refuse: true}); err == nil {
		t.Fatal("a refused op was answered nil")
	}
	if err := db.q.Do(context.Background(), &write{value: "good"}); err != nil {
		t.Fatalf("the op after a refused one: %v", err)
	}
}

// Ops queued while a batch commits form the next batch, up to its bound;
// a lone op does not wait for company.
func TestOpsQueuedDuringACommitFormTheNextBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		db := start(t, gate)
		var wg sync.WaitGroup
		wg.Go(func() { db.q.Do(context.Background(), &write{value: "lone"}) })
		synctest.Wait() // the loop holds the lone op, waiting at the gate
		for i := range 10 {
			wg.Go(func() { db.q.Do(context.Background(), &write{value: string(rune('a' + i))}) })
		}
		synctest.Wait()
		for range 3 {
			gate <- struct{}{}
		}
		wg.Wait()
		if !slices.Equal(db.batches, []int{1, 8, 2}) {
			t.Fatalf("batches %v, want [1 8 2]", db.batches)
		}
	})
}

func TestStopCommitsWhatIsQueuedThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		db := start(t, gate)
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				if err := db.q.Do(context.Background(), &write{value: string(rune('a' + i))}); err != nil {
					t.Errorf("a queued op: %v", err)
				}
			})
		}
		synctest.Wait() // one op at the gate, four queued
		close(gate)
		db.q.Stop()
		wg.Wait()
		if len(db.committed) != 5 {
			t.Fatalf("committed %v, want all 5 queued", db.committed)
		}
		if err := db.q.Do(context.Background(), &write{value: "late"}); !errors.Is(err, groupcommit.ErrClosed) {
			t.Fatalf("after Stop: %v, want ErrClosed", err)
		}
	})
}

func TestAnOpWhoseCallerLeftIsNotCommitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		db := start(t, gate)
		go db.q.Do(context.Background(), &write{value: "first"})
		synctest.Wait() // the loop holds "first" at the gate
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- db.q.Do(ctx, &write{value: "gone"}) }()
		synctest.Wait()
		cancel()
		close(gate)
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Do of a caller that left: %v, want context.Canceled", err)
		}
		if db.has("gone") {
			t.Fatal("the op of a caller that left was committed")
		}
	})
}

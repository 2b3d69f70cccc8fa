package store

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDisk stands for a database whose commits become durable only at a
// sync: it counts commits, and the test decides when a sync returns and
// with what.
type fakeDisk struct {
	mu        sync.Mutex
	committed int // saves committed
	durable   int // saves committed before the last sync returned
	failOp    string
	syncs     chan error // each sync takes its answer from here
	syncCalls atomic.Int64
}

func newFakeDisk() *fakeDisk { return &fakeDisk{syncs: make(chan error)} }

// startSyncing starts a syncing batcher on a fake disk whose commits fail
// for client failOp; the test ends by letting any sync left return, then
// stopping the batcher.
func startSyncing(t *testing.T, failOp string) (*fakeDisk, *Batcher[int]) {
	d := newFakeDisk()
	d.failOp = failOp
	b := NewSyncingBatcher(8, d.commit, d.sync)
	t.Cleanup(func() {
		close(d.syncs)
		b.Stop()
	})
	return d, b
}

// waitForSync returns once a sync has begun (and waits for the test).
func (d *fakeDisk) waitForSync() {
	for d.syncCalls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
}

func (d *fakeDisk) commit(batch []*Op[int]) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, o := range batch {
		if o.Req.ClientID == d.failOp {
			o.Err = errors.New("rejected")
			continue
		}
		d.committed++
		o.Res = SaveResult{PatientUUID: o.Req.PatientUUID}
	}
}

func (d *fakeDisk) sync() error {
	d.syncCalls.Add(1)
	d.mu.Lock()
	committed := d.committed
	d.mu.Unlock()
	err := <-d.syncs
	if err == nil {
		d.mu.Lock()
		d.durable = committed
		d.mu.Unlock()
	}
	return err
}

func (d *fakeDisk) durableSaves() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.durable
}

func (d *fakeDisk) committedSaves() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.committed
}

type answer struct {
	res SaveResult
	err error
}

func saveAsync(b *Batcher[int], client, id string) chan answer {
	c := make(chan answer, 1)
	go func() {
		res, err := b.Save(context.Background(), SaveRequest{ClientID: client, PatientUUID: id})
		c <- answer{res, err}
	}()
	return c
}

func TestSyncingBatcherAnswersOnlyDurableSaves(t *testing.T) {
	d, b := startSyncing(t, "")

	answers := make(chan answer, 30)
	for i := range 30 {
		go func() { answers <- <-saveAsync(b, "c", strconv.Itoa(i)) }()
	}
	// Syncs return one at a time, whenever the batcher asks; at each
	// answer, every save answered so far must be durable.
	for answered := 0; answered < 30; {
		select {
		case d.syncs <- nil:
		case a := <-answers:
			if a.err != nil {
				t.Fatal(a.err)
			}
			answered++
			if n := d.durableSaves(); n < answered {
				t.Fatalf("%d saves answered, %d durable", answered, n)
			}
		}
	}
}

func TestSyncingBatcherAnswersEachSaveAfterItsSync(t *testing.T) {
	d, b := startSyncing(t, "")

	c := saveAsync(b, "c", "a")
	for d.syncCalls.Load() == 0 {
		select {
		case a := <-c:
			t.Fatalf("save answered (%v) before any sync", a.err)
		default:
		}
	}
	// The sync under way has not returned: the save must still wait.
	select {
	case a := <-c:
		t.Fatalf("save answered (%v) before its sync returned", a.err)
	default:
	}
	d.syncs <- nil
	if a := <-c; a.err != nil || a.res.PatientUUID != "a" {
		t.Fatalf("save: %+v, %v", a.res, a.err)
	}
	if d.durableSaves() != 1 {
		t.Fatal("the save was answered before the sync that covers it")
	}
}

func TestSyncingBatcherAnswersAFailedOpWithoutWaitingForTheDisk(t *testing.T) {
	_, b := startSyncing(t, "bad")

	// No sync returns until the failed save has been answered.
	if a := <-saveAsync(b, "bad", "x"); a.err == nil || a.err.Error() != "rejected" {
		t.Fatalf("failed save answered with %v, want its own error", a.err)
	}
}

func TestSyncingBatcherStopsWritingAfterAFailedSync(t *testing.T) {
	d, b := startSyncing(t, "")

	c := saveAsync(b, "c", "a")
	d.syncs <- errors.New("EIO")
	if a := <-c; !errors.Is(a.err, ErrSyncFailed) {
		t.Fatalf("save whose sync failed answered with %v, want ErrSyncFailed", a.err)
	}
	if !errors.Is(b.Broken(), ErrSyncFailed) {
		t.Fatalf("Broken() = %v after a failed sync", b.Broken())
	}
	before, committed := d.syncCalls.Load(), d.committedSaves()
	// Later work fails at once: nothing is committed or synced.
	if a := <-saveAsync(b, "c", "b"); !errors.Is(a.err, ErrSyncFailed) {
		t.Fatalf("save after a failed sync answered with %v, want ErrSyncFailed", a.err)
	}
	if err := b.Do(context.Background(), func(context.Context, int) error { return nil }); !errors.Is(err, ErrSyncFailed) {
		t.Fatalf("Do after a failed sync returned %v, want ErrSyncFailed", err)
	}
	if d.committedSaves() != committed || d.syncCalls.Load() != before {
		t.Fatal("the batcher committed or synced after a failed sync")
	}
}

func TestSyncingBatcherStopSyncsWhatItCommitted(t *testing.T) {
	d := newFakeDisk()
	b := NewSyncingBatcher(8, d.commit, d.sync)
	done := make(chan struct{})
	defer close(done)
	go func() { // every sync returns at once
		for {
			select {
			case d.syncs <- nil:
			case <-done:
				return
			}
		}
	}()
	var answers []chan answer
	for range 20 {
		answers = append(answers, saveAsync(b, "c", "a"))
	}
	b.Stop()
	saved := 0
	for _, c := range answers {
		a := <-c
		switch {
		case a.err == nil:
			saved++
		case !errors.Is(a.err, ErrClosed):
			t.Fatalf("save during Stop: %v, want success or ErrClosed", a.err)
		}
	}
	if d.durableSaves() != saved {
		t.Fatalf("%d saves answered, %d durable after Stop", saved, d.durableSaves())
	}
	if _, err := b.Save(context.Background(), SaveRequest{ClientID: "c"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("save after Stop: %v, want ErrClosed", err)
	}
}

func TestAwaitDurableWaitsForWhatBeganToCommitBefore(t *testing.T) {
	d, b := startSyncing(t, "")
	if err := b.AwaitDurable(context.Background()); err != nil {
		t.Fatalf("with nothing written: %v", err)
	}

	save := saveAsync(b, "c", "a")
	d.waitForSync() // committed; its sync waits for the test
	durableAtReturn := make(chan int, 1)
	go func() {
		if err := b.AwaitDurable(context.Background()); err != nil {
			t.Error(err)
		}
		durableAtReturn <- d.durableSaves()
	}()
	time.Sleep(20 * time.Millisecond) // time to return early, if it would
	d.syncs <- nil
	if n := <-durableAtReturn; n != 1 {
		t.Fatalf("AwaitDurable returned with %d saves durable, want the 1 committed before it", n)
	}
	<-save
}

func TestAwaitDurableEnds(t *testing.T) {
	t.Run("when the caller gives up", func(t *testing.T) {
		d, b := startSyncing(t, "")
		save := saveAsync(b, "c", "a")
		d.waitForSync()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := b.AwaitDurable(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("AwaitDurable with a canceled context: %v", err)
		}
		d.syncs <- nil
		<-save
	})
	t.Run("after a failed sync", func(t *testing.T) {
		d, b := startSyncing(t, "")
		save := saveAsync(b, "c", "a")
		d.syncs <- errors.New("EIO")
		<-save
		if err := b.AwaitDurable(context.Background()); !errors.Is(err, ErrSyncFailed) {
			t.Fatalf("AwaitDurable after a failed sync: %v", err)
		}
	})
	t.Run("without a sync stage", func(t *testing.T) {
		b := NewBatcher(1, 8, func(batch []*Op[int]) {})
		defer b.Stop()
		if err := b.AwaitDurable(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

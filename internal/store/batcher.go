package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrSyncFailed: a sync to disk failed. What the store committed since the
// last good sync may be lost on a crash, and a later sync succeeding would
// not prove it is not (the kernel reports a lost write once), so the store
// takes no more writes until it is opened again.
var ErrSyncFailed = errors.New("store: a sync to disk failed; no more writes until restart")

// Op is one unit of work for a Batcher: a save, or, with Fn set, another
// piece of work that must run inside a write transaction (claims, finishes,
// replays). T is the driver's transaction type.
type Op[T any] struct {
	Ctx context.Context
	Req SaveRequest
	Fn  func(ctx context.Context, tx T) error
	Res SaveResult
	Err error

	done chan struct{}
}

// Batcher queues write work and hands it to commit in batches: one
// transaction, one sync to disk, for every op queued meanwhile (group
// commit). Callers are answered only once their batch is durable, so a nil
// Err means durably committed.
type Batcher[T any] struct {
	ops      chan *Op[T]
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	maxBatch int
	commit   func(batch []*Op[T])

	// With sync set, commit only commits and sync makes durable every
	// commit that returned before it was called. It runs on its own
	// goroutine, so the next batch runs while the last one syncs.
	sync     func() error
	unsynced chan unsynced[T]
	broken   atomic.Pointer[error] // the first sync failure

	// Batches are numbered as their commits begin (started); durable is
	// the number of the last one synced, and synced is closed, and
	// replaced, each time it moves. See AwaitDurable.
	started atomic.Uint64
	durable atomic.Uint64
	synced  atomic.Pointer[chan struct{}]
}

// unsynced is a committed batch on its way to the sync goroutine.
type unsynced[T any] struct {
	n   uint64
	ops []*Op[T] // committed ops; none when every op failed
}

// NewBatcher starts workers goroutines, each committing batches of up to
// maxBatch ops with commit. commit must set Res or Err of every op.
func NewBatcher[T any](workers, maxBatch int, commit func(batch []*Op[T])) *Batcher[T] {
	b := &Batcher[T]{ops: make(chan *Op[T], maxBatch*workers), quit: make(chan struct{}), stopped: make(chan struct{}),
		maxBatch: maxBatch, commit: commit}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(b.run)
	}
	go func() { wg.Wait(); close(b.stopped) }()
	return b
}

// NewSyncingBatcher starts one goroutine committing batches with commit and
// one making them durable with sync. A store whose commit does not sync by
// itself uses it: callers are answered after the sync that follows their
// commit. After a failed sync every op fails with ErrSyncFailed.
//
// A committed batch is handed to the sync goroutine directly, so at most
// one batch syncs while the next one commits; the committer then waits,
// and what arrives meanwhile makes the next batch. Letting more committed
// batches queue for the disk made batches smaller (11 saves instead of 17
// in the load test) and each save dearer, for no more saves per second.
func NewSyncingBatcher[T any](maxBatch int, commit func(batch []*Op[T]), sync func() error) *Batcher[T] {
	b := &Batcher[T]{ops: make(chan *Op[T], maxBatch), quit: make(chan struct{}), stopped: make(chan struct{}),
		maxBatch: maxBatch, commit: commit, sync: sync, unsynced: make(chan unsynced[T])}
	synced := make(chan struct{})
	b.synced.Store(&synced)
	settled := make(chan struct{})
	go func() { b.settle(); close(settled) }()
	go func() {
		b.run()
		close(b.unsynced)
		<-settled
		close(b.stopped)
	}()
	return b
}

// Broken returns the sync failure that stopped the batcher's writes, or nil.
func (b *Batcher[T]) Broken() error {
	if err := b.broken.Load(); err != nil {
		return *err
	}
	return nil
}

// Save queues a save and waits for its commit.
func (b *Batcher[T]) Save(ctx context.Context, req SaveRequest) (SaveResult, error) {
	o := &Op[T]{Ctx: ctx, Req: req, done: make(chan struct{})}
	err := b.submit(o)
	return o.Res, err
}

// Do runs fn inside a write transaction and waits for its commit. fn may
// run more than once (when its batch is retried): it must only fill state
// that the caller reads after Do returns.
func (b *Batcher[T]) Do(ctx context.Context, fn func(ctx context.Context, tx T) error) error {
	return b.submit(&Op[T]{Ctx: ctx, Fn: fn, done: make(chan struct{})})
}

// submit queues o and waits for its answer. Once queued it waits even if
// ctx ends: the caller must not be told "failed" about work that may commit.
func (b *Batcher[T]) submit(o *Op[T]) error {
	select {
	case b.ops <- o:
	case <-b.quit:
		return ErrClosed
	case <-o.Ctx.Done():
		return o.Ctx.Err()
	}
	select {
	case <-o.done:
	case <-b.stopped:
		// Every op taken is answered before the workers stop; one still
		// unanswered was queued too late and never run.
		select {
		case <-o.done:
		default:
			return ErrClosed
		}
	}
	return o.Err
}

func (b *Batcher[T]) run() {
	batch := make([]*Op[T], 0, b.maxBatch)
	for {
		select {
		case o := <-b.ops:
			b.flush(b.collect(append(batch[:0], o)))
		case <-b.quit:
			for {
				select {
				case o := <-b.ops:
					b.flush(b.collect(append(batch[:0], o)))
				default:
					return
				}
			}
		}
	}
}

// collect adds the ops already queued, up to maxBatch, without waiting: a
// lone op commits at once, and ops arriving during a commit form the next
// batch.
func (b *Batcher[T]) collect(batch []*Op[T]) []*Op[T] {
	for len(batch) < b.maxBatch {
		select {
		case o := <-b.ops:
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

func (b *Batcher[T]) flush(batch []*Op[T]) {
	live := batch[:0:0]
	for _, o := range batch {
		if err := o.Ctx.Err(); err != nil {
			o.Err = err // the caller gave up before its turn: run nothing
			continue
		}
		if err := b.Broken(); err != nil {
			o.Err = err
			continue
		}
		live = append(live, o)
	}
	var n uint64
	if len(live) > 0 {
		n = b.started.Add(1)
		b.commit(live)
	}
	if b.sync == nil {
		for _, o := range batch {
			close(o.done)
		}
		return
	}
	// Ops that failed are answered now; committed ones after their sync.
	var committed []*Op[T]
	for _, o := range batch {
		if o.Err != nil {
			close(o.done)
		} else {
			committed = append(committed, o)
		}
	}
	if n > 0 {
		// Even a batch that committed nothing goes, so that the batches
		// after it count as durable in order.
		b.unsynced <- unsynced[T]{n: n, ops: committed}
	}
}

// settle syncs each committed batch and answers its ops.
func (b *Batcher[T]) settle() {
	for u := range b.unsynced {
		err := b.Broken()
		if err == nil && len(u.ops) > 0 {
			if serr := b.sync(); serr != nil {
				err = fmt.Errorf("%w: %w", ErrSyncFailed, serr)
				b.broken.CompareAndSwap(nil, &err)
			}
		}
		if err == nil {
			b.durable.Store(u.n)
		}
		next := make(chan struct{})
		close(*b.synced.Swap(&next))
		for _, o := range u.ops {
			if err != nil {
				o.Res, o.Err = SaveResult{}, err
			}
			close(o.done)
		}
	}
}

// AwaitDurable returns once every batch that had begun to commit when it
// was called is durable. A store whose commits are visible before their
// sync calls it after a read, so that a reader never sees what a crash
// could still undo. It returns at once from a batcher without sync, and
// Broken's error once a sync has failed.
func (b *Batcher[T]) AwaitDurable(ctx context.Context) error {
	if b.sync == nil {
		return nil
	}
	n := b.started.Load()
	for {
		synced := *b.synced.Load()
		if err := b.Broken(); err != nil {
			return err
		}
		if b.durable.Load() >= n {
			return nil
		}
		select {
		case <-synced:
		case <-b.stopped:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Stop runs what is queued, then stops the workers.
func (b *Batcher[T]) Stop() {
	b.stopOnce.Do(func() {
		close(b.quit)
		<-b.stopped
	})
}

// Run runs one op inside a transaction: its Fn, or the save.
func (o *Op[T]) Run(ctx context.Context, tx T, asTx func(T) Tx, saver *Saver) error {
	if o.Fn != nil {
		return o.Fn(ctx, tx)
	}
	res, err := saver.Save(ctx, asTx(tx), o.Req)
	o.Res = res
	return err
}

// CountSaves counts the saves (not other work) in a batch.
func CountSaves[T any](ops []*Op[T]) int {
	n := 0
	for _, o := range ops {
		if o.Fn == nil {
			n++
		}
	}
	return n
}

// CommitWithRetry runs a batch with try, which runs ops in one transaction
// and returns the index of the op that failed (the transaction then rolled
// back) or -1 and the error of the transaction itself. A failed op is
// answered with its error and the batch runs again without it: nothing in
// it was acknowledged yet. An error of the whole transaction fails every op
// still in the batch. It returns the ops committed.
func CommitWithRetry[T any](ops []*Op[T], try func([]*Op[T]) (int, error)) []*Op[T] {
	for len(ops) > 0 {
		failed, err := try(ops)
		if failed < 0 {
			if err != nil {
				for _, o := range ops {
					o.Res, o.Err = SaveResult{}, err
				}
				return nil
			}
			return ops
		}
		ops[failed].Err = err
		ops = append(ops[:failed:failed], ops[failed+1:]...)
	}
	return nil
}

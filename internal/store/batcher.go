package store

import (
	"context"
	"sync"
)

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
// commit). Callers are answered only after commit returns, so a nil Err
// means durably committed.
type Batcher[T any] struct {
	ops      chan *Op[T]
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	maxBatch int
	commit   func(batch []*Op[T])
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
		live = append(live, o)
	}
	if len(live) > 0 {
		b.commit(live)
	}
	for _, o := range batch {
		close(o.done)
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

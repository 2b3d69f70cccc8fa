// Package groupcommit runs the write work of many callers in shared
// database transactions: one transaction, and so one sync to disk, for
// every piece of work queued while the last one committed.
//
// A driver gives New a commit function that runs a batch of ops in one
// transaction (see CommitWithRetry); callers queue work with Do and are
// answered once the transaction that ran it has committed, so a nil error
// means durably committed. A panic in an op fails that op alone.
package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
)

// ErrClosed: the batcher is stopping or stopped; the work did not run.
var ErrClosed = errors.New("groupcommit: closed")

// Op is one caller's work, run inside a driver's transaction of type T.
type Op[T any] struct {
	ctx   context.Context
	fn    func(ctx context.Context, tx T) error
	input any
	save  bool
	err   error
	done  chan struct{}
	log   *slog.Logger
}

// Run runs the op's work in tx. A panic in it is recovered, logged with its
// stack, and returned as the op's error: it fails this op, not the batch.
func (o *Op[T]) Run(ctx context.Context, tx T) (err error) {
	defer func() {
		if p := recover(); p != nil {
			o.log.Error("panic in a database write; the write failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("panic in a database write: %v", p)
		}
	}()
	return o.fn(ctx, tx)
}

// Input is what SaveInput was given, or nil: a driver may run the inputs
// of several ops together (one round trip for a whole batch) instead of
// calling each op's Run.
func (o *Op[T]) Input() any { return o.input }

// Fail answers the op with err (when the batch could not run it).
func (o *Op[T]) Fail(err error) { o.err = err }

// Failed reports whether the op has been failed.
func (o *Op[T]) Failed() bool { return o.err != nil }

// IsSave reports whether the op was queued by Save.
func (o *Op[T]) IsSave() bool { return o.save }

// Batcher queues write work and hands it to its commit function in
// batches.
type Batcher[T any] struct {
	ops      chan *Op[T]
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	maxBatch int
	commit   func(batch []*Op[T])
	log      *slog.Logger
}

// New starts workers goroutines, each committing batches of up to maxBatch
// ops with commit. commit must run or Fail every op of its batch.
func New[T any](workers, maxBatch int, commit func(batch []*Op[T]), log *slog.Logger) *Batcher[T] {
	b := &Batcher[T]{ops: make(chan *Op[T], maxBatch*workers), quit: make(chan struct{}), stopped: make(chan struct{}),
		maxBatch: maxBatch, commit: commit, log: log}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(b.run)
	}
	go func() { wg.Wait(); close(b.stopped) }()
	return b
}

// Do runs fn inside a write transaction and waits for its commit. fn may
// run more than once (when its batch is run again without a failed op): it
// must only fill state that the caller reads after Do returns.
func (b *Batcher[T]) Do(ctx context.Context, fn func(ctx context.Context, tx T) error) error {
	return b.submit(&Op[T]{ctx: ctx, fn: fn, done: make(chan struct{}), log: b.log})
}

// Save is Do for a save, which the batch-size metric counts.
func (b *Batcher[T]) Save(ctx context.Context, fn func(ctx context.Context, tx T) error) error {
	return b.submit(&Op[T]{ctx: ctx, fn: fn, save: true, done: make(chan struct{}), log: b.log})
}

// SaveInput is Save for a driver that knows how to run input itself (see
// Op.Input); fn does the same work alone, for a driver that runs ops one
// by one.
func (b *Batcher[T]) SaveInput(ctx context.Context, input any, fn func(ctx context.Context, tx T) error) error {
	return b.submit(&Op[T]{ctx: ctx, fn: fn, input: input, save: true, done: make(chan struct{}), log: b.log})
}

// DoInput is Do for a driver that knows how to run input itself, as
// SaveInput.
func (b *Batcher[T]) DoInput(ctx context.Context, input any, fn func(ctx context.Context, tx T) error) error {
	return b.submit(&Op[T]{ctx: ctx, fn: fn, input: input, done: make(chan struct{}), log: b.log})
}

// submit queues o and waits for its answer. Once queued it waits even if
// ctx ends: the caller must not be told "failed" about work that may commit.
func (b *Batcher[T]) submit(o *Op[T]) error {
	select {
	case b.ops <- o:
	case <-b.quit:
		return ErrClosed
	case <-o.ctx.Done():
		return o.ctx.Err()
	}
	select {
	case <-o.done:
	case <-b.stopped:
		// Every op taken is answered before the workers stop; one still
		// unanswered was queued too late and never ran.
		select {
		case <-o.done:
		default:
			return ErrClosed
		}
	}
	return o.err
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

// flush commits a batch and answers its ops. Ops whose caller has gone are
// answered without running.
func (b *Batcher[T]) flush(batch []*Op[T]) {
	live := batch[:0:0]
	for _, o := range batch {
		if err := o.ctx.Err(); err != nil {
			o.err = err
			continue
		}
		live = append(live, o)
	}
	if len(live) > 0 {
		b.commitSafely(live)
	}
	for _, o := range batch {
		close(o.done)
	}
}

// commitSafely runs commit, turning a panic outside any op (in the
// driver's own code) into the failure of the batch: the worker goes on.
func (b *Batcher[T]) commitSafely(batch []*Op[T]) {
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("panic in a database commit; its batch failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			for _, o := range batch {
				o.err = fmt.Errorf("panic in a database commit: %v", p)
			}
		}
	}()
	b.commit(batch)
}

// Stop runs what is queued, then stops the workers.
func (b *Batcher[T]) Stop() {
	b.stopOnce.Do(func() {
		close(b.quit)
		<-b.stopped
	})
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
					o.err = err
				}
				return nil
			}
			return ops
		}
		ops[failed].err = err
		ops = append(ops[:failed:failed], ops[failed+1:]...)
	}
	return nil
}

// CountSaves counts the ops of a batch queued by Save.
func CountSaves[T any](ops []*Op[T]) int {
	n := 0
	for _, o := range ops {
		if o.save {
			n++
		}
	}
	return n
}

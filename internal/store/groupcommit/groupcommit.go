// Package groupcommit queues a driver's typed write operations for its
// writer loop: callers queue an op with Do and wait; the loop takes the
// ops queued meanwhile with Next, runs them in one transaction (one sync
// to disk for all of them), and answers them with Answer once it has
// committed, so a nil error from Do means durably committed.
//
// The package only queues, collects and answers. It never calls into the
// driver: the loop, the transaction, what each op does and how a failed
// op is retried are the driver's (see store/sqlite's writer.go and
// store/postgres's writer.go).
package groupcommit

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed: the queue is stopping or stopped; the op did not run.
var ErrClosed = errors.New("groupcommit: closed")

// Request is one queued op and its answer.
type Request[O any] struct {
	// Op is the caller's operation; the driver writes its results into it.
	Op   O
	ctx  context.Context
	err  error
	done chan struct{}
}

// Fail sets the error the request is answered with.
func (r *Request[O]) Fail(err error) { r.err = err }

// Queue carries ops of type O from callers to a driver's writer loops.
type Queue[O any] struct {
	reqs     chan *Request[O]
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	loops    int // loops still taking ops
}

// New returns a queue for loops writer loops, each taking batches with
// Next. capacity bounds the ops waiting to be taken.
func New[O any](loops, capacity int) *Queue[O] {
	return &Queue[O]{reqs: make(chan *Request[O], capacity), quit: make(chan struct{}),
		stopped: make(chan struct{}), loops: loops}
}

// Do queues op and waits for its answer. Once queued it waits even if ctx
// ends: the caller must not be told "failed" about work that may commit.
// The op must not be touched until Do returns.
func (q *Queue[O]) Do(ctx context.Context, op O) error {
	r := &Request[O]{Op: op, ctx: ctx, done: make(chan struct{})}
	select {
	case q.reqs <- r:
	case <-q.quit:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.done:
	case <-q.stopped:
		// Every request taken is answered before the loops stop; one still
		// unanswered was queued too late and never ran.
		select {
		case <-r.done:
		default:
			return ErrClosed
		}
	}
	return r.err
}

// Next waits for an op, then adds those already queued, up to max, without
// waiting: a lone op commits at once, and ops queued during a commit form
// the next batch. Ops whose caller has gone are answered at once and left
// out. It returns batch refilled, and false once the queue is stopped and
// empty: the loop must then return.
func (q *Queue[O]) Next(batch []*Request[O], max int) ([]*Request[O], bool) {
	batch = batch[:0]
	for len(batch) == 0 {
		var r *Request[O]
		select {
		case r = <-q.reqs:
		case <-q.quit:
			select {
			case r = <-q.reqs:
			default:
				q.loopDone()
				return batch, false
			}
		}
		batch = q.take(batch, r)
	}
	for len(batch) < max {
		select {
		case r := <-q.reqs:
			batch = q.take(batch, r)
		default:
			return batch, true
		}
	}
	return batch, true
}

// take adds r to batch, unless its caller has gone.
func (q *Queue[O]) take(batch []*Request[O], r *Request[O]) []*Request[O] {
	if err := r.ctx.Err(); err != nil {
		r.err = err
		close(r.done)
		return batch
	}
	return append(batch, r)
}

// Answer answers every request of batch: nil, or the error it was failed
// with.
func (q *Queue[O]) Answer(batch []*Request[O]) {
	for _, r := range batch {
		close(r.done)
	}
}

// FailAll fails every request of batch not failed yet with err.
func FailAll[O any](batch []*Request[O], err error) {
	for _, r := range batch {
		if r.err == nil {
			r.err = err
		}
	}
}

func (q *Queue[O]) loopDone() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.loops--; q.loops == 0 {
		close(q.stopped)
	}
}

// Stop makes the loops run what is queued, then waits for them to return.
func (q *Queue[O]) Stop() {
	q.stopOnce.Do(func() { close(q.quit) })
	<-q.stopped
}

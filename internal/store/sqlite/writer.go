package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/pads-dev/pads/internal/store"
)

// op is one save waiting for a group commit, or, with fn set, another
// piece of work that must run on the writer (Reseal's pages).
type op struct {
	ctx  context.Context
	req  store.SaveRequest
	fn   func(ctx context.Context, t *tx) error
	res  store.SaveResult
	err  error
	done chan struct{}
}

// writer owns the write connection and commits queued saves in batches: one
// fsync serves every save of a batch, which is what lets durable saves keep
// up with many concurrent callers.
type writer struct {
	conn  *sql.Conn
	tx    *tx
	saver *store.Saver
	cfg   store.Config

	ops      chan *op
	quit     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
}

func startWriter(ctx context.Context, conn *sql.Conn, saver *store.Saver, cfg store.Config) (*writer, error) {
	t, err := prepare(ctx, conn)
	if err != nil {
		return nil, err
	}
	w := &writer{conn: conn, tx: t, saver: saver, cfg: cfg,
		ops: make(chan *op, cfg.MaxBatch), quit: make(chan struct{}), stopped: make(chan struct{})}
	go w.run()
	return w, nil
}

// save queues req and waits for the commit that makes it durable. Once
// queued, it waits even if ctx ends: the caller must not be told "failed"
// about a save that may commit.
func (w *writer) save(ctx context.Context, req store.SaveRequest) (store.SaveResult, error) {
	return w.submit(&op{ctx: ctx, req: req, done: make(chan struct{})})
}

// do runs fn on the writer inside a transaction, like a save.
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, t *tx) error) error {
	_, err := w.submit(&op{ctx: ctx, fn: fn, done: make(chan struct{})})
	return err
}

func (w *writer) submit(o *op) (store.SaveResult, error) {
	ctx := o.ctx
	select {
	case w.ops <- o:
	case <-w.quit:
		return store.SaveResult{}, store.ErrClosed
	case <-ctx.Done():
		return store.SaveResult{}, ctx.Err()
	}
	select {
	case <-o.done:
	case <-w.stopped:
		// The writer answers every op it takes before it stops; an op still
		// unanswered was queued too late and never written.
		select {
		case <-o.done:
		default:
			return store.SaveResult{}, store.ErrClosed
		}
	}
	return o.res, o.err
}

func (w *writer) run() {
	defer close(w.stopped)
	batch := make([]*op, 0, w.cfg.MaxBatch)
	for {
		select {
		case o := <-w.ops:
			batch = w.collect(append(batch[:0], o))
			w.commit(batch)
		case <-w.quit:
			for {
				select {
				case o := <-w.ops:
					batch = w.collect(append(batch[:0], o))
					w.commit(batch)
				default:
					return
				}
			}
		}
	}
}

// collect adds the saves already queued, up to MaxBatch, without waiting:
// a lone save commits at once, and saves arriving during a commit form the
// next batch.
func (w *writer) collect(batch []*op) []*op {
	for len(batch) < w.cfg.MaxBatch {
		select {
		case o := <-w.ops:
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

func (w *writer) commit(batch []*op) {
	defer func() {
		for _, o := range batch {
			close(o.done)
		}
	}()
	live := make([]*op, 0, len(batch))
	for _, o := range batch {
		if err := o.ctx.Err(); err != nil {
			o.err = err // the caller gave up before its turn: write nothing
			continue
		}
		live = append(live, o)
	}
	// Saves rarely fail one by one (a damaged row, say). When one does, the
	// transaction is rolled back and run again without it: nothing in it
	// was acknowledged yet, and the happy path needs no savepoints.
	for len(live) > 0 {
		failed, err := w.try(live)
		if failed < 0 {
			if err != nil {
				for _, o := range live {
					o.res, o.err = store.SaveResult{}, err
				}
				return
			}
			if saves := countSaves(live); saves > 0 {
				w.cfg.ObserveBatch(saves)
			}
			return
		}
		live[failed].err = err
		live = append(live[:failed], live[failed+1:]...)
	}
}

func countSaves(ops []*op) int {
	n := 0
	for _, o := range ops {
		if o.fn == nil {
			n++
		}
	}
	return n
}

// try runs ops in one transaction. It returns the index of the save that
// failed (the transaction is then rolled back), or -1 and the error of
// BEGIN or COMMIT, which fails them all.
func (w *writer) try(ops []*op) (int, error) {
	ctx := context.Background()
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return -1, fmt.Errorf("begin: %w", err)
	}
	for i, o := range ops {
		var res store.SaveResult
		var err error
		if o.fn != nil {
			err = o.fn(ctx, w.tx)
		} else {
			res, err = w.saver.Save(ctx, w.tx, o.req)
		}
		if err != nil {
			w.conn.ExecContext(ctx, "ROLLBACK")
			return i, err
		}
		o.res = res
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		w.conn.ExecContext(ctx, "ROLLBACK")
		return -1, fmt.Errorf("commit: %w", err)
	}
	return -1, nil
}

// stop commits what is queued, then closes the connection.
func (w *writer) stop() {
	w.stopOnce.Do(func() {
		close(w.quit)
		<-w.stopped
		w.tx.close()
		w.conn.Close()
	})
}

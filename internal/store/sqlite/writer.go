package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// writer owns the write connection: SQLite has one writer at a time, so
// the store has exactly one goroutine writing (run). It takes the ops
// queued meanwhile from a groupcommit.Queue and runs them in one
// IMMEDIATE transaction whose COMMIT syncs the WAL (synchronous=FULL), so
// its callers are answered once it is on disk, and SQLite publishes a
// commit to readers only after that sync.
//
// A save's walk on the writer goroutine: run -> commit -> try ->
// writeCommit, which runs the INSERT (4 frames, all in this package).
type writer struct {
	conn     *sql.Conn
	tx       *tx
	cfg      store.Config
	q        *groupcommit.Queue[*op]
	stopOnce sync.Once
	// pause is held around each batch, so that the checkpointer can stop
	// the writer between two batches to rewind the WAL.
	pause sync.Mutex
	// noRoom is set when a transaction fails for want of room or for a
	// failing disk (store.ErrUnavailable), and cleared when one that
	// writes a save, or Ping's probe, commits: Ping fails meanwhile.
	noRoom atomic.Bool
}

// op is one piece of the writer's work: exactly one of its inputs is set.
// The writer fills in its answer; the caller reads it once Do returns.
type op struct {
	commit *sqlstore.Prepared  // a save's outcome, sealed off the writer
	claim  *store.ClaimRequest // due deliveries to lease
	finish *finished           // an attempt to record
	exec   []sqlstore.Stmt     // a cold path's statements

	conflict bool            // commit: the record changed since it was read
	claimed  []store.Claimed // claim: still sealed
	changed  []int64         // exec: rows changed per statement
}

// finished is an attempt with its answer already sealed.
type finished struct {
	store.Finished
	response []byte
}

// startWriter starts the writer on conn.
func startWriter(ctx context.Context, conn *sql.Conn, cfg store.Config) (*writer, error) {
	t, err := prepare(ctx, conn)
	if err != nil {
		return nil, err
	}
	w := &writer{conn: conn, tx: t, cfg: cfg, q: groupcommit.New[*op](1, cfg.MaxBatch)}
	go w.run()
	return w, nil
}

// do queues o for the next batch and waits for its commit.
func (w *writer) do(ctx context.Context, o *op) error {
	return storeError(w.q.Do(ctx, o))
}

// Write runs stmts in one transaction of the writer (sqlstore.DB).
func (w *writer) Write(ctx context.Context, stmts ...sqlstore.Stmt) ([]int64, error) {
	o := &op{exec: stmts}
	if err := w.do(ctx, o); err != nil {
		return nil, err
	}
	return o.changed, nil
}

// WriteBeside is Write: SQLite has one writer (sqlstore.DB).
func (w *writer) WriteBeside(ctx context.Context, stmts ...sqlstore.Stmt) ([]int64, error) {
	return w.Write(ctx, stmts...)
}

// run is the writer loop: take what is queued, commit it, answer it.
func (w *writer) run() {
	batch := make([]*groupcommit.Request[*op], 0, w.cfg.MaxBatch)
	for {
		var ok bool
		if batch, ok = w.q.Next(batch, w.cfg.MaxBatch); !ok {
			return
		}
		w.commit(batch)
		w.q.Answer(batch)
	}
}

// commit runs batch in one transaction. An op that fails is answered with
// its error and the batch runs again without it: nothing in it was
// acknowledged yet. An error of the transaction itself fails every op
// still in the batch. A panic fails the batch, not the writer.
func (w *writer) commit(batch []*groupcommit.Request[*op]) {
	defer recoverBatch(w.cfg.Logger, batch)
	start := time.Now()
	live := batch
	for len(live) > 0 {
		failed, err := w.try(live)
		if failed < 0 {
			if err != nil {
				groupcommit.FailAll(live, err)
				live = nil
			}
			break
		}
		live[failed].Fail(err)
		live = append(live[:failed:failed], live[failed+1:]...)
	}
	w.cfg.ObserveCommit(time.Since(start), len(live) > 0)
	if saves := countSaves(live); saves > 0 {
		w.cfg.ObserveBatch(saves)
	}
}

// try runs ops in one IMMEDIATE transaction and returns the index of the
// op that failed (the transaction then rolled back), or -1 and the error
// of the transaction itself.
func (w *writer) try(ops []*groupcommit.Request[*op]) (failed int, err error) {
	w.pause.Lock()
	defer w.pause.Unlock()
	defer func() {
		if err != nil && errors.Is(storeError(err), store.ErrUnavailable) {
			w.noRoom.Store(true)
		}
	}()
	ctx := context.Background()
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return -1, fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			w.conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	for i, r := range ops {
		var err error
		switch o := r.Op; {
		case o.commit != nil:
			o.conflict, err = w.tx.writeCommit(ctx, o.commit)
		case o.claim != nil:
			o.claimed, err = w.tx.claim(ctx, o.claim)
		case o.finish != nil:
			err = w.tx.finish(ctx, o.finish)
		default:
			o.changed, err = w.tx.exec(ctx, o.exec)
		}
		if err != nil {
			return i, err
		}
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return -1, fmt.Errorf("commit: %w", err)
	}
	committed = true
	// A claim or a finish may commit having written nothing; a save
	// always writes its record.
	for _, r := range ops {
		if r.Op.commit != nil {
			w.noRoom.Store(false)
			break
		}
	}
	return -1, nil
}

// countSaves counts the saves of a batch.
func countSaves(batch []*groupcommit.Request[*op]) int {
	n := 0
	for _, r := range batch {
		if r.Op.commit != nil {
			n++
		}
	}
	return n
}

// recoverBatch turns a panic on the writer into the failure of its batch,
// logged with its stack: the writer goes on with the next batch.
func recoverBatch(log *slog.Logger, batch []*groupcommit.Request[*op]) {
	if p := recover(); p != nil {
		log.Error("panic in a database write; its batch failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		groupcommit.FailAll(batch, fmt.Errorf("panic in a database write: %v", p))
	}
}

// stop commits what is queued, then closes the connection.
func (w *writer) stop() {
	w.stopOnce.Do(func() {
		w.q.Stop()
		w.tx.close()
		w.conn.Close()
	})
}

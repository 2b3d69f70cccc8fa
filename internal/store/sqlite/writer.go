package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/groupcommit"
	"github.com/pads-dev/pads/internal/store/sqlstore"
)

// writer owns the write connection: SQLite has one writer at a time, so
// the store has exactly one, and a groupcommit.Batcher feeds it batches.
// Each batch is one IMMEDIATE transaction whose COMMIT syncs the WAL
// (synchronous=FULL), so its callers are answered once it is on disk, and
// SQLite publishes a commit to readers only after that sync.
type writer struct {
	conn  *sql.Conn
	tx    *tx
	codec sqlstore.Codec
	cfg   store.Config
	b     *groupcommit.Batcher[*tx]
	once  sync.Once
	// pause is held around each batch, so that the checkpointer can stop
	// the writer between two batches to rewind the WAL.
	pause sync.Mutex
	// noRoom is set when a transaction fails for want of room or for a
	// failing disk (store.ErrUnavailable), and cleared when one that
	// writes a save, or Ping's probe, commits: Ping fails meanwhile.
	noRoom atomic.Bool
}

// startWriter starts the writer on conn.
func startWriter(ctx context.Context, conn *sql.Conn, codec sqlstore.Codec, cfg store.Config) (*writer, error) {
	t, err := prepare(ctx, conn)
	if err != nil {
		return nil, err
	}
	w := &writer{conn: conn, tx: t, codec: codec, cfg: cfg}
	w.b = groupcommit.New(1, cfg.MaxBatch, w.commit, cfg.Logger)
	return w, nil
}

// commitSave runs c in the next batch. A conflict is the save's answer,
// not a failure of the batch: Commit wrote nothing when it found one.
func (w *writer) commitSave(ctx context.Context, c store.Commit) (store.Committed, error) {
	var out store.Committed
	var conflict bool
	err := w.b.Save(ctx, func(ctx context.Context, t *tx) error {
		var err error
		out, err = sqlstore.Commit(ctx, t, w.codec, c)
		conflict = errors.Is(err, store.ErrConflict)
		if conflict {
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		return store.Committed{}, storeError(err)
	case conflict:
		return store.Committed{}, store.ErrConflict
	}
	return out, nil
}

// do runs fn on the writer inside a transaction, like a save.
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, t *tx) error) error {
	return storeError(w.b.Do(ctx, fn))
}

func (w *writer) commit(batch []*groupcommit.Op[*tx]) {
	start := time.Now()
	committed := groupcommit.CommitWithRetry(batch, w.try)
	w.cfg.ObserveCommit(time.Since(start), len(committed) > 0)
	if saves := groupcommit.CountSaves(committed); saves > 0 {
		w.cfg.ObserveBatch(saves)
	}
}

// try runs ops in one IMMEDIATE transaction (see groupcommit.CommitWithRetry).
func (w *writer) try(ops []*groupcommit.Op[*tx]) (failed int, err error) {
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
	for i, o := range ops {
		if err := o.Run(ctx, w.tx); err != nil {
			return i, err
		}
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return -1, fmt.Errorf("commit: %w", err)
	}
	committed = true
	// A claim or a finish may commit having written nothing; a save
	// always writes its record.
	for _, o := range ops {
		if o.IsSave() {
			w.noRoom.Store(false)
			break
		}
	}
	return -1, nil
}

// stop commits what is queued, then closes the connection.
func (w *writer) stop() {
	w.once.Do(func() {
		w.b.Stop()
		w.tx.close()
		w.conn.Close()
	})
}

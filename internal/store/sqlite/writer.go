package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// writer owns the write connection: SQLite has one writer at a time, so
// the store has exactly one, and a store.Batcher feeds it batches (group
// commit). Its commits do not wait for the disk: the batcher syncs the WAL
// on a goroutine of its own, while the next batch runs, and answers a
// batch's callers after the sync that follows its commit.
type writer struct {
	conn  *sql.Conn
	wal   *walSyncer
	tx    *tx
	saver *store.Saver
	cfg   store.Config
	b     *store.Batcher[*tx]
	once  sync.Once
	// pause is held around each batch, so that the checkpointer can stop
	// the writer between two batches to rewind the WAL.
	pause sync.Mutex
}

// startWriter starts the writer on conn, a connection opened through walVFS
// as WAL owner owner; sync makes its commits durable (nil: fsync).
func startWriter(ctx context.Context, owner string, conn *sql.Conn, saver *store.Saver, cfg store.Config,
	sync func(*os.File) error) (*writer, error) {
	t, err := prepare(ctx, conn)
	if err != nil {
		return nil, err
	}
	wal, err := deferWALSyncs(owner, sync)
	if err != nil {
		t.close()
		return nil, err
	}
	w := &writer{conn: conn, wal: wal, tx: t, saver: saver, cfg: cfg}
	w.b = store.NewSyncingBatcher(cfg.MaxBatch, w.commit, w.sync)
	return w, nil
}

// sync makes the commits so far durable, timed for the metrics: a slow
// disk shows there first.
func (w *writer) sync() error {
	start := time.Now()
	err := w.wal.Sync()
	w.cfg.ObserveSync(time.Since(start), err)
	return err
}

// readDone returns once whatever a read that has ended could have seen is
// durable: commits are visible to other connections about a millisecond
// before their sync, and a reader must not be shown a save that a crash
// could still undo. Reads wait for at most the sync under way and the
// next; a store without writes does not wait.
func (w *writer) readDone(ctx context.Context) error { return w.b.AwaitDurable(ctx) }

// broken returns the sync failure that stopped the writer, or nil.
func (w *writer) broken() error { return w.b.Broken() }

func (w *writer) save(ctx context.Context, req store.SaveRequest) (store.SaveResult, error) {
	return w.b.Save(ctx, req)
}

// do runs fn on the writer inside a transaction, like a save.
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, t *tx) error) error {
	return w.b.Do(ctx, fn)
}

func (w *writer) commit(batch []*store.Op[*tx]) {
	if committed := store.CommitWithRetry(batch, w.try); len(committed) > 0 {
		if saves := store.CountSaves(committed); saves > 0 {
			w.cfg.ObserveBatch(saves)
		}
	}
}

func asTx(t *tx) store.Tx { return t }

// try runs ops in one IMMEDIATE transaction (see store.CommitWithRetry).
func (w *writer) try(ops []*store.Op[*tx]) (int, error) {
	w.pause.Lock()
	defer w.pause.Unlock()
	ctx := context.Background()
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return -1, fmt.Errorf("begin: %w", err)
	}
	for i, o := range ops {
		if err := o.Run(ctx, w.tx, asTx, w.saver); err != nil {
			w.conn.ExecContext(ctx, "ROLLBACK")
			return i, err
		}
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		w.conn.ExecContext(ctx, "ROLLBACK")
		return -1, fmt.Errorf("commit: %w", err)
	}
	return -1, nil
}

// stop commits what is queued, then closes the connection.
func (w *writer) stop() {
	w.once.Do(func() {
		w.b.Stop()
		w.wal.Close()
		w.tx.close()
		w.conn.Close()
	})
}

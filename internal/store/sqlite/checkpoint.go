package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// The writer's connection never checkpoints (wal_autocheckpoint=0): copying
// WAL frames back into the database file is slow, and on the writer it would
// stall every save queued behind it. A checkpointer does it in the
// background on its own connection, with PASSIVE checkpoints that never
// block the writer; the writer restarts the WAL once it is fully copied.
type checkpointer struct {
	db      *sql.DB
	every   time.Duration
	stopped chan struct{}
	cancel  context.CancelFunc
}

func startCheckpointer(path string, every time.Duration) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{db: db, every: every, stopped: make(chan struct{}), cancel: cancel}
	go c.run(ctx)
	return c, nil
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.stopped)
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// A failed checkpoint (a long reader, say) is retried on the next
			// tick; the WAL keeps every committed frame meanwhile.
			c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

// stop ends the checkpointer; Close's final checkpoint is SQLite's own.
func (c *checkpointer) stop() {
	c.cancel()
	<-c.stopped
	c.db.Close()
}

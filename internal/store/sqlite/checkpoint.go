package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// The writer's connection never checkpoints (wal_autocheckpoint=0): copying
// WAL frames back into the database file is slow, and on the writer it would
// stall every save queued behind it. A checkpointer does it in the
// background on its own connection.
//
// PASSIVE checkpoints copy frames without blocking anyone, but they never
// let the WAL start over while saves keep coming: SQLite rewinds the WAL
// only when a write begins after every frame has been copied, and under
// steady load there is always a newer frame. Left alone the WAL grows by
// every page every save writes (about 10 KB a save, a gigabyte in 15 s of
// load), and each commit then extends the file, which makes its writes and
// its fsync dearer. So once the WAL holds policy.restartFrames frames, the
// checkpointer pauses the writer between two batches and runs a RESTART
// checkpoint: the PASSIVE one just before has copied nearly everything, so
// the pause costs the rest of the copy and one fsync of the database file,
// and the next commit writes over the start of the WAL file instead of
// growing it.
type checkpointer struct {
	db     *sql.DB
	policy walPolicy
	pause  sync.Locker // held by the writer around each batch
	log    *slog.Logger
	// tick is what each tick runs: checkpoint (tests replace it).
	tick func(ctx context.Context)
	// holdOff counts the ticks left before the next rewind may pause the
	// writer, after one that a reader kept from finishing.
	holdOff int
	stopped chan struct{}
	cancel  context.CancelFunc
}

// checkpointBusy bounds how long a RESTART checkpoint, with the writer
// paused, waits for readers of an older snapshot: past it the checkpoint
// gives up and is tried again on the next tick, so a long reader cannot
// stall saves.
const checkpointBusy = 50 * time.Millisecond

// pausedCopyFrames is how many frames at most are left for the checkpoint
// that runs with the writer paused.
const pausedCopyFrames = 256

// rewindHoldOff is how many ticks pass, after a rewind a reader kept from
// finishing, before the writer is paused again for one: a long reader
// (an export, say) must not cost saves a pause every tick.
const rewindHoldOff = 10

func startCheckpointer(path string, policy walPolicy, pause sync.Locker, log *slog.Logger) (*checkpointer, error) {
	c, err := newCheckpointer(path, policy, pause, log)
	if err != nil {
		return nil, err
	}
	c.start()
	return c, nil
}

// start runs the checkpointer's ticks until stop.
func (c *checkpointer) start() {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.run(ctx)
}

func newCheckpointer(path string, policy walPolicy, pause sync.Locker, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsnWith(path, checkpointBusy, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, policy: policy, pause: pause, log: log, stopped: make(chan struct{})}
	c.tick = c.checkpoint
	return c, nil
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.stopped)
	t := time.NewTicker(c.policy.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// A failed checkpoint (a long reader, say) is retried on the next
			// tick; the WAL keeps every committed frame meanwhile.
			c.safeTick(ctx)
		}
	}
}

// safeTick runs one tick, recovering a panic: it is logged, the tick's
// checkpoint is given up (the WAL keeps every frame), and the next tick
// runs as usual.
func (c *checkpointer) safeTick(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic in the SQLite checkpointer; the checkpoint was skipped", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	c.tick(ctx)
}

// checkpoint copies the WAL into the database file and, when the WAL has
// grown past policy.restartFrames, rewinds it.
func (c *checkpointer) checkpoint(ctx context.Context) {
	frames, _, err := c.walCheckpoint(ctx, "PASSIVE")
	if err != nil || frames < c.policy.restartFrames {
		return
	}
	if c.holdOff > 0 {
		c.holdOff--
		return
	}
	// Saves kept committing while that copy ran. Copy those too, without
	// the writer paused, until few are left: what is left is what the
	// writer waits for.
	for range 4 {
		more, _, err := c.walCheckpoint(ctx, "PASSIVE")
		if err != nil {
			return
		}
		if more-frames < pausedCopyFrames {
			break
		}
		frames = more
	}
	c.pause.Lock()
	_, busy, err := c.walCheckpoint(ctx, "RESTART")
	c.pause.Unlock()
	if err == nil && busy {
		c.holdOff = rewindHoldOff
	}
}

// walCheckpoint runs one checkpoint and returns the WAL's size in frames,
// and whether a reader or writer kept it from finishing.
func (c *checkpointer) walCheckpoint(ctx context.Context, mode string) (frames int, busy bool, err error) {
	var blocked, copied int
	err = c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&blocked, &frames, &copied)
	return frames, blocked != 0, err
}

// stop ends the checkpointer; Close's final checkpoint is SQLite's own.
func (c *checkpointer) stop() {
	c.cancel()
	<-c.stopped
	c.db.Close()
}

// truncate copies the whole WAL into the database file and truncates the
// WAL to zero bytes, with the writer paused (after an erasure: the WAL's
// older frames still hold the erased rows). A reader of an older snapshot
// can keep it from finishing: it is tried a few times, then left to the
// next checkpoint that finds no reader (each one rewrites those frames).
func (c *checkpointer) truncate(ctx context.Context) {
	for range 5 {
		c.walCheckpoint(ctx, "PASSIVE")
		c.pause.Lock()
		_, busy, err := c.walCheckpoint(ctx, "TRUNCATE")
		c.pause.Unlock()
		if err == nil && !busy {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.log.Warn("an erasure's WAL was not truncated (a long reader held it); the next checkpoints rewrite it")
}

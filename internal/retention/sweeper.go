// Package retention runs the retention sweep in the background: once a
// minute (and at start), each process tries to become the one that
// sweeps, then removes what each client's retention says has expired, in
// small batches with a pause between them, so that saves and deliveries
// go on beside it (docs/data-lifecycle.md).
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/store"
)

// Defaults of Options.
const (
	DefaultEvery = time.Minute
	DefaultBatch = 200
	DefaultPause = 10 * time.Millisecond
	DefaultRest  = 2.0
	// DefaultMaxBatch bounds the batch a pass grows to while it is behind.
	DefaultMaxBatch = 2000
)

// Observer is told what each pass did (metrics.Retention fits).
type Observer interface {
	ObserveRemoved(kind string, n int)
	ObservePass(outcome string)
	SetPendingKept(kept map[[2]string]int)
}

// Options shape the sweep; zero values take the defaults.
type Options struct {
	Every time.Duration // between passes
	// Batch is the rows of each kind a pass's first batch takes; while a
	// pass finds more after each batch, the next one takes twice as many,
	// up to MaxBatch: the writer's fixed cost of a transaction (its sync)
	// is shared by more rows, while the pause below still keeps the sweep
	// to a third of the writer.
	Batch int
	// MaxBatch bounds the batches (the store's pace, or DefaultMaxBatch):
	// the SQLite store asks for 500, since saves wait behind a batch.
	MaxBatch int
	// Pause is the least wait between batches; the wait is at least Rest
	// times what the last batch took.
	Pause time.Duration
	// Rest is the wait between batches as a multiple of the last batch's
	// time (the store's pace, or DefaultRest). 2 by default: on SQLite the
	// sweep holds the one writer, which saves wait for, a third of the
	// time at most. On PostgreSQL its transactions run beside the writer
	// loops, where saves do not wait for them, and the store asks for 0.5:
	// it sweeps two thirds of the time, so that it keeps up with saves at
	// full speed.
	Rest float64
	Now  func() time.Time
}

// Sweeper sweeps a store under the config in force.
type Sweeper struct {
	store  store.Lifecycle
	config func() *config.Config
	obs    Observer
	log    *slog.Logger
	opts   Options
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// New returns a sweeper of st under the config current returns. What
// opts leaves zero comes from st's pace (store.Lifecycle.SweepPace), then
// from the defaults.
func New(st store.Lifecycle, current func() *config.Config, obs Observer, log *slog.Logger, opts Options) *Sweeper {
	pace := st.SweepPace()
	if opts.MaxBatch == 0 {
		opts.MaxBatch = pace.MaxBatch
	}
	if opts.Rest == 0 {
		opts.Rest = pace.Rest
	}
	if opts.Every == 0 {
		opts.Every = DefaultEvery
	}
	if opts.Batch == 0 {
		opts.Batch = DefaultBatch
	}
	if opts.Pause == 0 {
		opts.Pause = DefaultPause
	}
	if opts.MaxBatch == 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.Rest == 0 {
		opts.Rest = DefaultRest
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Sweeper{store: st, config: current, obs: obs, log: log, opts: opts}
}

// Start runs a pass now and then every Every, until Stop.
func (s *Sweeper) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done.Go(func() {
		t := time.NewTicker(s.opts.Every)
		defer t.Stop()
		for {
			s.safePass(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// Stop ends the sweep, the batch under way first.
func (s *Sweeper) Stop() {
	if s.cancel != nil {
		s.cancel()
		s.done.Wait()
	}
}

func (s *Sweeper) safePass(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in the retention sweep; the pass was given up", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			s.obs.ObservePass("failed")
		}
	}()
	if _, err := s.Pass(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("retention sweep", "err", err)
	}
}

// Pass sweeps until nothing more has expired, if no other process is
// sweeping, and counts what is kept pending.
func (s *Sweeper) Pass(ctx context.Context) (store.Swept, error) {
	var total store.Swept
	unlock, ok, err := s.store.SweepLock(ctx)
	if err != nil {
		s.obs.ObservePass("failed")
		return total, err
	}
	if !ok {
		s.obs.ObservePass("skipped")
		return total, nil
	}
	defer unlock()
	cfg := s.config()
	withData, err := s.store.SweptClients(ctx)
	if err != nil {
		s.obs.ObservePass("failed")
		return total, err
	}
	clients := append(clientIDs(cfg), withData...)
	slices.Sort(clients)
	req := store.SweepRequest{Now: s.opts.Now(), Batch: s.opts.Batch, Clients: slices.Compact(clients), Retention: retentionOf(cfg)}
	for {
		began := time.Now()
		got, err := s.store.Sweep(ctx, req)
		took := time.Since(began)
		s.observe(got)
		add(&total, got)
		if err != nil {
			s.obs.ObservePass("failed")
			return total, err
		}
		if !got.More {
			break
		}
		req.Batch = min(2*req.Batch, max(s.opts.MaxBatch, s.opts.Batch))
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(max(s.opts.Pause, time.Duration(s.opts.Rest*float64(took)))):
		}
	}
	kept, err := s.store.PendingKept(ctx)
	if err != nil {
		s.obs.ObservePass("failed")
		return total, err
	}
	byRef := make(map[[2]string]int, len(kept))
	for _, k := range kept {
		ref := [2]string{k.ClientID, k.ID}
		if cfg.Destination(k.ClientID, k.ID) == nil {
			// The labels stay bounded by the config's destinations.
			ref = [2]string{metrics.Other, metrics.Other}
		}
		byRef[ref] += k.Deliveries
	}
	s.obs.SetPendingKept(byRef)
	s.obs.ObservePass("ok")
	return total, nil
}

func (s *Sweeper) observe(got store.Swept) {
	s.obs.ObserveRemoved("bodies", got.Bodies)
	s.obs.ObserveRemoved("deliveries", got.Deliveries)
	s.obs.ObserveRemoved("attempts", got.Attempts)
	s.obs.ObserveRemoved("events", got.Events)
	s.obs.ObserveRemoved("records", got.Records)
}

func add(total *store.Swept, got store.Swept) {
	total.Bodies += got.Bodies
	total.Deliveries += got.Deliveries
	total.Attempts += got.Attempts
	total.Events += got.Events
	total.Records += got.Records
}

func clientIDs(cfg *config.Config) []string {
	ids := make([]string, len(cfg.Clients))
	for i, c := range cfg.Clients {
		ids[i] = c.ID
	}
	return ids
}

// retentionOf returns each client's retention under cfg: the defaults for
// a client no longer in it.
func retentionOf(cfg *config.Config) func(string) store.Retention {
	return func(id string) store.Retention {
		r := config.DefaultRetention()
		if c := cfg.Client(id); c != nil {
			r = c.Retention
		}
		return store.Retention{Bodies: r.Bodies.D(), Deliveries: r.Deliveries.D(), Records: r.Records.D()}
	}
}

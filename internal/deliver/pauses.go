package deliver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// PauseRefresh is how often a process reads the paused destinations from
// the store: a pause or resume made by another process (the CLI, another
// pads serve) takes effect here within it.
const PauseRefresh = 2 * time.Second

// ClassGone is the error class of an attempt answered 410 Gone: the
// destination says it is no more, and is paused until an operator resumes
// it (docs/delivery.md).
const ClassGone = "http_410_gone"

// ReasonGone and ByDestination are how a 410 Gone's pause is recorded.
const (
	ReasonGone    = "the destination answered 410 Gone"
	ByDestination = "destination"
)

// pauses is the set of paused destinations this process honours: read
// from the store every PauseRefresh, and changed at once by this
// process's own pauses (a 410 Gone).
type pauses struct {
	store   store.Pauses // nil: nothing is ever paused
	log     *slog.Logger
	resumed func(refs ...store.DestinationRef)
	stop    chan struct{}
	done    chan struct{}

	mu  sync.Mutex
	set map[store.DestinationRef]bool
}

func newPauses(st store.Pauses, log *slog.Logger, resumed func(refs ...store.DestinationRef)) *pauses {
	return &pauses{store: st, log: log, resumed: resumed, set: map[store.DestinationRef]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Start reads the pauses, then again every PauseRefresh until Stop.
func (p *pauses) Start(ctx context.Context) {
	if p.store == nil {
		close(p.done)
		return
	}
	p.refresh(ctx)
	go func() {
		defer close(p.done)
		t := time.NewTicker(PauseRefresh)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.refresh(ctx)
			}
		}
	}()
}

// Stop ends the refreshes.
func (p *pauses) Stop() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

// refresh reads the pauses; the destinations resumed since the last read
// are told to the claimer (their deliveries are due).
func (p *pauses) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, PauseRefresh)
	defer cancel()
	list, err := p.store.PausedDestinations(ctx)
	if err != nil {
		p.log.Warn("read paused destinations; the last ones read stay in force", "err", err)
		return
	}
	now := make(map[store.DestinationRef]bool, len(list))
	for _, ps := range list {
		now[ps.DestinationRef] = true
	}
	p.mu.Lock()
	var resumed []store.DestinationRef
	for ref := range p.set {
		if !now[ref] {
			resumed = append(resumed, ref)
		}
	}
	p.set = now
	p.mu.Unlock()
	if len(resumed) > 0 {
		p.resumed(resumed...)
	}
}

// paused reports whether ref is paused.
func (p *pauses) paused(ref store.DestinationRef) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.set[ref]
}

// list returns the paused destinations, for a claim to skip.
func (p *pauses) list() []store.DestinationRef {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]store.DestinationRef, 0, len(p.set))
	for ref := range p.set {
		out = append(out, ref)
	}
	return out
}

// pause records a pause made by this process (a 410 Gone), durably, and
// honours it at once. It reports whether the destination was running.
func (p *pauses) pause(ctx context.Context, ps store.Pause) (bool, error) {
	p.mu.Lock()
	p.set[ps.DestinationRef] = true
	p.mu.Unlock()
	if p.store == nil {
		return true, nil
	}
	return p.store.PauseDestination(ctx, ps)
}

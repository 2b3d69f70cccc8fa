package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// leases is the service that keeps this process's claims honest: it holds
// the process's owner in the database, and every TakeOverEvery takes over
// the deliveries of owners that are gone. After a kill -9 or a crash,
// another process (or this one restarted) delivers them within seconds,
// not when their lease ends.
//
// The claimer claims only under an owner this service holds (see current).
// A hold that broke (the database restarted) may already have been taken
// over by another process: the service then names a new owner and tells
// the claimer (lost), which drops the deliveries waiting in line: their
// leases go to whoever takes them over, this process included. Attempts in
// flight at that moment finish and record under the old owner; one of them
// may meanwhile be tried by another process too (delivery is at least
// once).
type leases struct {
	outbox store.Outbox
	log    *slog.Logger
	every  time.Duration
	hard   context.Context // cancelled when the dispatcher gives up waiting
	// held is told that an owner is held (first, or anew), tookOver that
	// deliveries of processes that are gone are due: both wake the claimer.
	// lost is told the hold broke, after the new owner is named.
	held, tookOver, lost func()

	mu    sync.Mutex
	owner string
	hold  store.OwnerHold // nil while it could not be taken

	stop, stopped chan struct{}
}

func newLeases(outbox store.Outbox, log *slog.Logger, every time.Duration, hard context.Context) *leases {
	return &leases{outbox: outbox, log: log, every: every, hard: hard, owner: processID(),
		held: func() {}, tookOver: func() {}, lost: func() {},
		stop: make(chan struct{}), stopped: make(chan struct{})}
}

// processID names this process in leases and the attempt log.
func processID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Start holds the owner and takes over at once, then every TakeOverEvery,
// until Stop.
func (l *leases) Start() { go l.run() }

// Stop ends the service and releases the hold: this process's owner is no
// longer alive, and what it still leases may be taken over.
func (l *leases) Stop() {
	close(l.stop)
	<-l.stopped
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != nil {
		l.hold.Release()
		l.hold = nil
	}
}

func (l *leases) run() {
	defer close(l.stopped)
	ticker := time.NewTicker(l.every)
	defer ticker.Stop()
	for {
		l.check()
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
	}
}

// current returns the owner to claim under, and whether it is held: a
// claim under an owner nobody holds would be taken over while it is tried.
func (l *leases) current() (owner string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner, l.hold != nil
}

// check holds the owner (again, under a new name, if the hold broke), then
// takes over the deliveries of owners that are gone.
func (l *leases) check() {
	ctx, cancel := context.WithTimeout(l.hard, 10*time.Second)
	defer cancel()
	l.mu.Lock()
	hold := l.hold
	l.mu.Unlock()
	if hold != nil && hold.Lost(ctx) {
		l.log.Warn("the database lost this process's hold on its deliveries; claiming under a new owner")
		hold.Release()
		l.mu.Lock()
		l.hold, l.owner = nil, processID()
		l.mu.Unlock()
		l.lost()
	}
	l.mu.Lock()
	owner, held := l.owner, l.hold != nil
	l.mu.Unlock()
	if !held {
		h, err := l.outbox.HoldOwner(ctx, owner)
		if err != nil {
			l.log.Error("hold this process's deliveries", "err", err)
			return
		}
		l.mu.Lock()
		l.hold = h
		l.mu.Unlock()
		l.held()
	}
	n, err := l.outbox.TakeOver(ctx, owner)
	if err != nil {
		l.log.Error("take over deliveries", "err", err)
		return
	}
	if n > 0 {
		l.log.Info("took over deliveries left by a process that is gone", "deliveries", n)
		l.tookOver()
	}
}

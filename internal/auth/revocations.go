package auth

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// RevocationRefresh is how often a serving process reads the revocations
// again: a revocation made by `pads tokens revoke` (in another process, or
// on another machine sharing the database) is honoured within this plus
// the time of one read.
const RevocationRefresh = 2 * time.Second

// RevocationBound is the promise made to operators (docs/operations.md):
// a revocation is honoured everywhere within it. One refresh plus one
// read, itself cut off after RevocationRefresh, is 4 s; the rest is slack
// for a busy machine.
const RevocationBound = 5 * time.Second

// Revocations are, per client, the time before which the client's tokens
// are refused (`pads tokens revoke`). They live in the database; a serving
// process keeps a copy in memory, read at start and every
// RevocationRefresh, so checking a token costs a map lookup, never a
// database read.
type Revocations struct {
	load   func(context.Context) (map[string]time.Time, error)
	every  time.Duration
	logger *slog.Logger

	before   atomic.Pointer[map[string]time.Time]
	stop     chan struct{}
	stopOnce sync.Once
	started  atomic.Bool
	done     chan struct{}
}

// NewRevocations returns revocations read by load every every. Call
// Refresh once before serving, then Start.
func NewRevocations(load func(context.Context) (map[string]time.Time, error), every time.Duration, logger *slog.Logger) *Revocations {
	r := &Revocations{load: load, every: every, logger: logger, stop: make(chan struct{}), done: make(chan struct{})}
	r.before.Store(&map[string]time.Time{})
	return r
}

// Refresh reads the revocations now. On an error the copy in memory stays.
func (r *Revocations) Refresh(ctx context.Context) error {
	m, err := r.load(ctx)
	if err != nil {
		return err
	}
	r.before.Store(&m)
	return nil
}

// Start refreshes the revocations every r.every until Stop.
func (r *Revocations) Start() {
	if !r.started.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer close(r.done)
		tick := time.NewTicker(r.every)
		defer tick.Stop()
		failing := false
		for {
			select {
			case <-r.stop:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), r.every)
			err := r.Refresh(ctx)
			cancel()
			switch {
			case err != nil && !failing:
				r.logger.Warn("cannot read token revocations; the last ones read stay in force", "err", err)
			case err == nil && failing:
				r.logger.Info("token revocations read again")
			}
			failing = err != nil
		}
	}()
}

// Stop ends the refreshes started by Start.
func (r *Revocations) Stop() {
	r.stopOnce.Do(func() { close(r.stop) })
	if r.started.Load() {
		<-r.done
	}
}

// Revoked reports whether the client token of c was issued before its
// subject's revocation. A nil *Revocations revokes nothing.
func (r *Revocations) Revoked(c Claims) bool {
	return r.revoked(c.Subject, c)
}

// RevokedAdmin is Revoked for an admin token: admins' revocations are
// kept under AdminSubject, apart from clients' of the same id.
func (r *Revocations) RevokedAdmin(c Claims) bool {
	return r.revoked(AdminSubject(c.Subject), c)
}

// AdminSubject is the key of an admin's revocation: "admin:<id>". A
// client id cannot hold ':', so it never names a client.
func AdminSubject(id string) string { return "admin:" + id }

func (r *Revocations) revoked(subject string, c Claims) bool {
	if r == nil {
		return false
	}
	before, ok := (*r.before.Load())[subject]
	return ok && c.IssuedAt.Before(before)
}

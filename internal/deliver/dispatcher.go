package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// Observer is told the outcome of every attempt: "delivered", "retry" or
// "failed", by destination type.
type Observer interface {
	ObserveAttempt(destinationType, outcome string, d time.Duration)
}

// Options tune a Dispatcher; zero values take the defaults.
type Options struct {
	// PerDestination bounds the attempts in flight to one destination
	// (default 32): a destination that hangs holds at most this many
	// workers, so it never delays the others.
	PerDestination int
	// Workers bounds all attempts in flight (default 256).
	Workers int
	// Poll is the longest the dispatcher sleeps without a wake-up
	// (default 1s): saves wake it at once; polling catches deliveries
	// that other processes enqueue, replay or abandon.
	Poll time.Duration
	// Lease is how long a claim holds a delivery (default 2 minutes: four
	// times the longest attempt). A process that dies does not make others
	// wait for it: its deliveries are taken over (see TakeOverEvery).
	Lease time.Duration
	// TakeOverEvery is how often the dispatcher checks its own hold on its
	// deliveries and takes over those of processes that are gone
	// (default 2s).
	TakeOverEvery time.Duration
	// Unordered, when set, returns the destinations whose deliveries go out
	// in any order; to all others a record's deliveries go in the order of
	// their events.
	Unordered func() []store.DestinationRef
	Now       func() time.Time
	Jitter    func() float64
}

func (o Options) withDefaults() Options {
	if o.PerDestination == 0 {
		o.PerDestination = 32
	}
	if o.Workers == 0 {
		o.Workers = 256
	}
	if o.Poll == 0 {
		o.Poll = time.Second
	}
	if o.Lease == 0 {
		o.Lease = 2 * time.Minute
	}
	if o.TakeOverEvery == 0 {
		o.TakeOverEvery = 2 * time.Second
	}
	if o.Unordered == nil {
		o.Unordered = func() []store.DestinationRef { return nil }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = mrand.Float64
	}
	return o
}

// Resolver returns the settings in force of the destination a delivery
// names, or false when the config no longer has it.
type Resolver func(ref store.DestinationRef) (*Destination, bool)

// Dispatcher claims due deliveries and tries them.
type Dispatcher struct {
	outbox   store.Outbox
	resolve  Resolver
	senders  map[string]Sender
	log      *slog.Logger
	observer Observer
	opts     Options
	owner    string
	// hold keeps owner alive in the database while the process runs (nil
	// while it could not be taken); tookOver is when the dispatcher last
	// took over the deliveries of processes that are gone. Both belong to
	// the run goroutine.
	hold     store.OwnerHold
	tookOver time.Time

	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	hard    context.Context // attempts run under it; cancelled past the grace
	cancel  context.CancelFunc

	mu    sync.Mutex
	dests map[store.DestinationRef]*lane
	// mine holds the ids of the deliveries queued or in flight here: a
	// claim that returns one again (its lease ran out while it waited or
	// ran) must not start it a second time.
	mine     map[int64]bool
	inflight int
	queued   int
	attempts sync.WaitGroup
	// Why the dispatcher was woken: work for these destinations, or
	// anything (a refill, the poll, a replay). A claim that must skip full
	// lines walks the whole due queue, so saves for full lines alone do
	// not trigger one.
	hinted  map[store.DestinationRef]bool
	anyWork bool
}

// lane is one destination's claimed deliveries: at most PerDestination in
// flight, up to as many again waiting in line (under lease) for a slot.
type lane struct {
	busy  int
	queue []work
}

// work is a claimed delivery and the owner it was claimed under: an
// attempt records itself under that owner, whatever the dispatcher's
// owner has become since (see keepOwner).
type work struct {
	store.Claimed
	owner string
}

// NewDispatcher returns a dispatcher over outbox. resolve gives each
// delivery's destination at each attempt; senders maps a destination type
// ("webhook", "sns") to its Sender.
func NewDispatcher(outbox store.Outbox, resolve Resolver, senders map[string]Sender, log *slog.Logger, obs Observer, opts Options) *Dispatcher {
	hard, cancel := context.WithCancel(context.Background())
	return &Dispatcher{
		outbox: outbox, resolve: resolve, senders: senders, log: log, observer: obs, opts: opts.withDefaults(),
		owner: processID(), wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{}),
		hard: hard, cancel: cancel, dests: map[store.DestinationRef]*lane{}, mine: map[int64]bool{}, hinted: map[store.DestinationRef]bool{}, anyWork: true,
	}
}

// processID names this process in leases and the attempt log.
func processID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Notify wakes the dispatcher: deliveries were enqueued for destinations,
// or, with none named, something else may be due (a replay). It never
// blocks.
func (d *Dispatcher) Notify(destinations ...store.DestinationRef) {
	d.mu.Lock()
	if len(destinations) == 0 {
		d.anyWork = true
	}
	for _, k := range destinations {
		d.hinted[k] = true
	}
	d.mu.Unlock()
	d.wake1()
}

func (d *Dispatcher) wake1() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Start runs the dispatcher until Stop.
func (d *Dispatcher) Start() { go d.run() }

// Stop stops claiming and releases the deliveries waiting in line, waits
// for the attempts in flight until ctx ends, then cancels them; an attempt
// cut short is retried later (its lease runs out).
func (d *Dispatcher) Stop(ctx context.Context) {
	close(d.stop)
	<-d.stopped
	for owner, ids := range d.dropQueued() {
		if err := d.outbox.Release(ctx, owner, ids); err != nil {
			d.log.Error("release deliveries", "err", err)
		}
	}
	done := make(chan struct{})
	go func() { d.attempts.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.cancel()
		<-done
	}
	d.cancel()
	if d.hold != nil {
		d.hold.Release()
	}
}

// dropQueued takes the deliveries waiting in line out of their lines and
// returns their ids by the owner they were claimed under.
func (d *Dispatcher) dropQueued() map[string][]int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string][]int64{}
	for key, l := range d.dests {
		for _, w := range l.queue {
			out[w.owner] = append(out[w.owner], w.ID)
			delete(d.mine, w.ID)
		}
		d.queued -= len(l.queue)
		l.queue = nil
		if l.busy == 0 {
			delete(d.dests, key)
		}
	}
	return out
}

// keepOwner holds this process's owner in the database, then takes over
// the deliveries of owners that are gone: after a kill -9 or a crash,
// another process (or this one restarted) delivers them within seconds,
// not when their lease ends. The dispatcher claims only while it holds its
// owner. A hold that broke (the database restarted) may already have been
// taken over by another process: the deliveries waiting in line are
// dropped (the owner's leases go to whoever takes them over, this process
// included), and the dispatcher claims under a new owner from then on.
// Attempts in flight at that moment finish and record under the old owner;
// one of them may meanwhile be tried by another process too.
func (d *Dispatcher) keepOwner() {
	d.tookOver = d.opts.Now()
	ctx, cancel := context.WithTimeout(d.hard, 10*time.Second)
	defer cancel()
	if d.hold != nil && d.hold.Lost(ctx) {
		d.log.Warn("the database lost this process's hold on its deliveries; claiming under a new owner")
		d.hold.Release()
		d.hold = nil
		d.dropQueued()
		d.owner = processID()
	}
	if d.hold == nil {
		h, err := d.outbox.HoldOwner(ctx, d.owner)
		if err != nil {
			d.log.Error("hold this process's deliveries", "err", err)
			return
		}
		d.hold = h
	}
	n, err := d.outbox.TakeOver(ctx, d.owner)
	if err != nil {
		d.log.Error("take over deliveries", "err", err)
		return
	}
	if n > 0 {
		d.log.Info("took over deliveries left by a process that is gone", "deliveries", n)
		d.mu.Lock()
		d.anyWork = true
		d.mu.Unlock()
	}
}

func (d *Dispatcher) run() {
	defer close(d.stopped)
	timer := time.NewTimer(0)
	defer timer.Stop()
	d.keepOwner()
	for {
		select {
		case <-d.stop:
			return
		case <-d.wake:
		case <-timer.C:
			d.mu.Lock()
			d.anyWork = true
			d.mu.Unlock()
		}
		if d.opts.Now().Sub(d.tookOver) >= d.opts.TakeOverEvery || d.hold == nil {
			d.keepOwner()
		}
		if d.hold == nil || !d.worthClaiming() {
			timer.Reset(d.opts.Poll)
			continue
		}
		more, saturated := d.safeClaimRound()
		for more {
			more, saturated = d.safeClaimRound()
		}
		if saturated {
			// Every worker is busy: claim again as soon as a finished
			// attempt wakes us.
			d.mu.Lock()
			d.anyWork = true
			d.mu.Unlock()
			timer.Reset(d.opts.Poll)
			continue
		}
		timer.Reset(d.sleep())
	}
}

// worthClaiming reports whether a claim may find work this process can
// take, and resets the wake-up reasons.
func (d *Dispatcher) worthClaiming() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	worth := d.anyWork
	for k := range d.hinted {
		if l, ok := d.dests[k]; !ok || !d.full(l) {
			worth = true
		}
	}
	d.anyWork = false
	clear(d.hinted)
	return worth
}

// sleep is how long to wait for the next scheduled retry, at most Poll. A
// delivery due now that could not be claimed waits for its destination to
// free a slot, which wakes the dispatcher anyway.
func (d *Dispatcher) sleep() time.Duration {
	at, ok, err := d.outbox.NextDue(d.hard, d.opts.Now())
	if err != nil || !ok {
		return d.opts.Poll
	}
	if w := at.Sub(d.opts.Now()); w > 0 && w < d.opts.Poll {
		return w
	}
	return d.opts.Poll
}

// safeClaimRound is claimRound, with a panic recovered and logged: the
// round fails (what it claimed falls due again when its lease ends), and
// the dispatcher goes on.
func (d *Dispatcher) safeClaimRound() (more, saturated bool) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("panic in the delivery dispatcher; the claim round failed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			more, saturated = false, false
		}
	}()
	return d.claimRound()
}

// claimRound claims deliveries for the destinations with room in line and
// starts what their slots allow. It reports whether another round may find
// more, and whether the line is full (every destination with work is at
// its limit, or the dispatcher as a whole is).
func (d *Dispatcher) claimRound() (more, saturated bool) {
	d.mu.Lock()
	room := d.opts.Workers*2 - d.inflight - d.queued
	var skip []store.DestinationRef
	for key, l := range d.dests {
		if d.full(l) {
			skip = append(skip, key)
		}
	}
	d.mu.Unlock()
	if room <= 0 {
		return false, true
	}
	// At most one destination's worth: a line refilled at PerDestination
	// (see attempt) then never overflows, so nothing claimed is released.
	limit := min(room, d.opts.PerDestination)
	now := d.opts.Now()
	claimed, err := d.outbox.Claim(d.hard, store.ClaimRequest{Owner: d.owner, Now: now, LeaseUntil: now.Add(d.opts.Lease),
		Limit: limit, Skip: skip, Unordered: d.opts.Unordered()})
	if err != nil {
		d.log.Error("claim deliveries", "err", err)
		return false, false
	}
	var overflow []int64
	d.mu.Lock()
	for _, c := range claimed {
		if d.mine[c.ID] {
			continue // already here: its lease ran out while it waited or ran
		}
		l := d.lane(c.Ref())
		if d.full(l) {
			overflow = append(overflow, c.ID) // its line filled up within this claim
			continue
		}
		l.queue = append(l.queue, work{c, d.owner})
		d.mine[c.ID] = true
		d.queued++
	}
	roomLeft := false
	for _, c := range claimed {
		roomLeft = roomLeft || !d.full(d.lane(c.Ref()))
	}
	d.startLocked()
	d.mu.Unlock()
	if len(overflow) > 0 {
		if err := d.outbox.Release(d.hard, d.owner, overflow); err != nil {
			d.log.Error("release deliveries", "err", err)
		}
	}
	// Claim again at once only if a line this claim served has room left:
	// when the claim filled every line it served, another would have to
	// skip them, walking all their due deliveries to find none. Work for
	// other destinations is claimed when a line drains (the refill claims
	// in due order across destinations), on their saves' wake-ups, or on
	// the poll.
	return len(claimed) == limit && len(overflow) == 0 && roomLeft, false
}

// full reports whether l holds two destinations' worth, busy and queued:
// claims skip it and release what they got for it.
func (d *Dispatcher) full(l *lane) bool { return l.busy+len(l.queue) >= 2*d.opts.PerDestination }

func (d *Dispatcher) lane(key store.DestinationRef) *lane {
	l, ok := d.dests[key]
	if !ok {
		l = &lane{}
		d.dests[key] = l
	}
	return l
}

// startLocked starts the waiting deliveries that have a slot. d.mu is held.
func (d *Dispatcher) startLocked() {
	for key, l := range d.dests {
		for len(l.queue) > 0 && l.busy < d.opts.PerDestination && d.inflight < d.opts.Workers {
			w := l.queue[0]
			l.queue = l.queue[1:]
			l.busy++
			d.queued--
			d.inflight++
			d.attempts.Add(1)
			dest, _ := d.resolve(key)
			go d.attempt(w, dest)
		}
		if l.busy == 0 && len(l.queue) == 0 {
			delete(d.dests, key)
		}
	}
}

// free gives back a slot of destination's line and starts what waits.
func (d *Dispatcher) free(destination store.DestinationRef) {
	d.mu.Lock()
	l := d.lane(destination)
	l.busy--
	d.inflight--
	// Claim again only once the line has drained to one destination's
	// worth, so claims come in batches rather than one per attempt.
	refill := l.busy+len(l.queue) <= d.opts.PerDestination
	select {
	case <-d.stop: // stopping: the line is released, start nothing
	default:
		d.startLocked()
	}
	if refill {
		// A hint, not anyWork: if a claim has refilled the line by the
		// time the dispatcher wakes, there is nothing to claim for it.
		d.hinted[destination] = true
	}
	d.mu.Unlock()
	if refill {
		d.wake1()
	}
}

// ended is told that a delivery to ref is over (delivered or failed for
// good): a record's later delivery to ref may have waited for it
// (per-record order) and is due now. A busy line claims again as it
// drains anyway; an idle one is woken.
func (d *Dispatcher) ended(ref store.DestinationRef) {
	d.mu.Lock()
	l, ok := d.dests[ref]
	idle := !ok || l.busy == 0 && len(l.queue) == 0
	d.hinted[ref] = true
	d.mu.Unlock()
	if idle {
		d.wake1()
	}
}

// finish records an attempt, trying again while the database is away
// (down, restarting) for up to half a lease: an attempt left unrecorded
// keeps its delivery leased, untried, until the lease ends.
func (d *Dispatcher) finish(fin store.Finished) error {
	deadline := d.opts.Now().Add(d.opts.Lease / 2)
	wait := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(d.hard, 30*time.Second)
		err := d.outbox.Finish(ctx, fin)
		cancel()
		if err == nil || !errors.Is(err, store.ErrUnavailable) || d.opts.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-d.hard.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// removedGrace is how long a delivery whose destination this process's
// config does not know stays pending, looked at again every minute, before
// it fails.
const removedGrace = time.Hour

// send makes attempt n of c with its destination's sender. A destination
// of a type no sender serves, or a payload that does not open, fails for
// good (kept for replay once it is fixed); a destination this process's
// config does not know waits out removedGrace first (see attempt).
func (d *Dispatcher) send(c store.Claimed, dest *Destination, n int, at time.Time) (Result, string) {
	if dest == nil {
		return Result{ErrorClass: ClassDestinationRemoved, Permanent: true}, "unknown"
	}
	if c.Unreadable {
		return Result{ErrorClass: ClassPayloadUnreadable, Permanent: true}, dest.Type
	}
	sender := d.senders[dest.Type]
	if sender == nil {
		return Result{ErrorClass: ClassUnknownType, Permanent: true}, dest.Type
	}
	// The body of the destination's format in force at this attempt: both
	// were snapshotted with the event.
	format, body := FormatSeedJSON, c.Payload
	if dest.Format == FormatFHIR {
		format, body = FormatFHIR, c.FHIR
		if body == nil {
			return Result{ErrorClass: ClassNoFHIR, Permanent: true}, dest.Type
		}
	}
	ctx, cancel := context.WithTimeout(d.hard, dest.Timeout)
	defer cancel()
	return sender.Send(ctx, dest, Message{
		ID: c.MessageID, DataType: c.DataType, Model: c.Model, Attempt: n, Key: c.Key, FunnelID: c.FunnelID,
		Format: format, Body: body, Timestamp: at,
	}), dest.Type
}

// attempt tries one delivery once and records what came of it. Its slot
// in the destination's line is freed as soon as the destination has
// answered: recording the attempt waits for a commit, and holding the slot
// meanwhile would cap a destination at PerDestination deliveries per
// commit, not per round trip.
func (d *Dispatcher) attempt(w work, dest *Destination) {
	c := w.Claimed
	defer d.attempts.Done()
	defer func() {
		d.mu.Lock()
		delete(d.mine, c.ID)
		d.mu.Unlock()
	}()
	freed := false
	defer func() {
		// A panic (in a sender, say) fails this attempt only: it is logged,
		// its slot is given back, and its lease runs out, so the delivery
		// is tried again.
		if p := recover(); p != nil {
			d.log.Error("panic in a delivery attempt; it will be tried again when its lease ends", "delivery_id", c.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !freed {
				d.free(c.Ref())
			}
		}
	}()
	n := c.Attempts + 1
	start := d.opts.Now()
	res, destType := d.send(c, dest, n, start)
	end := d.opts.Now()
	d.free(c.Ref())
	freed = true
	fin := store.Finished{Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID, Series: c.Series, Number: n, Owner: w.owner,
		StartedAt: start, Duration: end.Sub(start), StatusCode: res.StatusCode, ErrorClass: res.ErrorClass, Response: res.Response}}
	outcome := "delivered"
	switch {
	case res.ErrorClass == "":
		fin.State = store.Delivered
	case res.ErrorClass == ClassDestinationRemoved && end.Sub(c.CreatedAt) < removedGrace:
		// This process's config lacks the destination: it may be one a
		// reload on another process has just added, or a typo about to be
		// fixed. Look again in a minute; fail only after the grace.
		fin.State, fin.NextAt, outcome = store.Pending, end.Add(time.Minute), "retry"
	case res.Permanent:
		fin.State, outcome = store.Failed, "failed"
	default:
		p := Policy{Attempts: dest.Retry.Attempts, InitialDelay: dest.Retry.InitialDelay, Multiplier: dest.Retry.Multiplier, Jitter: d.opts.Jitter}
		at, final := p.Next(n, end, res.RetryAfter)
		fin.State, fin.NextAt, outcome = store.Pending, at, "retry"
		if final {
			fin.State, fin.NextAt, outcome = store.Failed, time.Time{}, "failed"
		}
	}
	d.observer.ObserveAttempt(destType, outcome, fin.Duration)
	if err := d.finish(fin); err != nil {
		// The lease runs out and the delivery is tried again: at least once.
		d.log.Error("record attempt", "delivery_id", c.ID, "err", err)
		return
	}
	if fin.State != store.Pending {
		d.ended(c.Ref())
	}
	if outcome == "failed" {
		d.log.Warn("delivery failed", "delivery_id", c.ID, "message_id", c.MessageID, "client", c.Key.ClientID,
			"destination", c.Destination, "data_type", string(c.DataType), "attempts", n, "error_class", res.ErrorClass)
	}
}

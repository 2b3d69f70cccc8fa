package deliver

import (
	"context"
	"log/slog"
	mrand "math/rand/v2"
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
	// PerClient bounds the attempts in flight to one client's
	// destinations together (default Workers/4): however many of them
	// hang, a client takes at most a quarter of the workers.
	PerClient int
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
	// ClientDestinations, when set, returns a client's destinations: a
	// claim skips them all while the client's line is full, so its
	// backlog does not stand between a claim and other clients' due
	// deliveries.
	ClientDestinations func(client string) []store.DestinationRef
	Now                func() time.Time
	Jitter             func() float64
	// Pauses, when set, is where paused destinations are kept: they are
	// sent nothing, and a 410 Gone pauses its destination (PauseRefresh).
	Pauses store.Pauses
	// MaxPerSecond, when set, returns a destination's rate bound in force
	// (0: unbounded); see rates.
	MaxPerSecond func(ref store.DestinationRef) float64
	// Reported, when set, is told every attempt once it is recorded
	// (operator events).
	Reported func(Report)
}

// Report is one recorded attempt, for those who watch destinations: what
// the destination answered and what became of the delivery.
type Report struct {
	Delivery store.Delivery // as claimed, before this attempt
	Type     string         // the destination's type, "unknown" when it is gone
	Result   Result
	// Outcome is the verdict's label: "delivered", "retry", "failed" or
	// "paused" (a 410 Gone).
	Outcome  string
	Duration time.Duration
	// Ended is when the attempt ended: Ended minus Delivery.CreatedAt is
	// how long the results took from their save to the destination.
	Ended time.Time
	// Paused: this attempt paused its destination (a 410 Gone answer).
	Paused bool
}

func (o Options) withDefaults() Options {
	if o.PerDestination == 0 {
		o.PerDestination = 32
	}
	if o.Workers == 0 {
		o.Workers = 256
	}
	if o.PerClient == 0 {
		o.PerClient = max(1, o.Workers/4)
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
	if o.ClientDestinations == nil {
		o.ClientDestinations = func(string) []store.DestinationRef { return nil }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = mrand.Float64
	}
	if o.MaxPerSecond == nil {
		o.MaxPerSecond = func(store.DestinationRef) float64 { return 0 }
	}
	if o.Reported == nil {
		o.Reported = func(Report) {}
	}
	return o
}

// Resolver returns the settings in force of the destination a delivery
// names, or false when the config no longer has it.
type Resolver func(ref store.DestinationRef) (*Destination, bool)

// Dispatcher claims due deliveries and tries them. It is three parts, each
// in its own file: the claimer (claimer.go: lines per destination, claim
// hints, worker limits), the lease service (leases.go: the owner's hold
// and the takeover of processes that are gone) and the runner (attempt.go:
// the pre-attempt checks, the send, and the record of it), whose verdict
// on each attempt is the pure outcome (outcome.go).
type Dispatcher struct {
	claims *claimer
	leases *leases
	pauses *pauses
	runner *runner
	log    *slog.Logger
	outbox store.Outbox
	cancel context.CancelFunc // cancels the attempts past the grace
}

// NewDispatcher returns a dispatcher over outbox. resolve gives each
// delivery's destination at each attempt; senders maps a destination type
// ("webhook", "sns") to its Sender.
func NewDispatcher(outbox store.Outbox, resolve Resolver, senders map[string]Sender, log *slog.Logger, obs Observer, opts Options) *Dispatcher {
	opts = opts.withDefaults()
	hard, cancel := context.WithCancel(context.Background())
	l := newLeases(outbox, log, opts.TakeOverEvery, hard)
	c := newClaimer(outbox, log, opts, l, hard)
	p := newPauses(opts.Pauses, log, c.hint)
	c.pauses, c.rates = p, newRates(opts.MaxPerSecond)
	r := &runner{outbox: outbox, resolve: resolve, senders: senders, log: log, observer: obs, opts: opts, hard: hard, lanes: c, pauses: p,
		starting: make(chan work, 2*opts.Workers), quit: make(chan struct{})}
	c.start = r.start
	l.held = func() { c.hint() }
	l.tookOver = func() { c.hint() }
	l.lost = func() { c.dropQueued() }
	return &Dispatcher{claims: c, leases: l, pauses: p, runner: r, log: log, outbox: outbox, cancel: cancel}
}

// Notify wakes the dispatcher: deliveries were enqueued for destinations,
// or, with none named, something else may be due (a replay). It never
// blocks.
func (d *Dispatcher) Notify(destinations ...store.DestinationRef) { d.claims.hint(destinations...) }

// OldestWaiting is how long the delivery waiting in this process's lines,
// claimed but not started, that became due first has been due (0: none
// waits), counted from when it became due, not from its claim. The
// store's oldest due delivery does not see those: a claim moves their
// next attempt to their lease's end.
func (d *Dispatcher) OldestWaiting() time.Duration { return d.claims.oldestQueued(d.claims.opts.Now()) }

// Start runs the dispatcher until Stop.
func (d *Dispatcher) Start() {
	d.pauses.Start(d.runner.hard)
	d.leases.Start()
	go d.runner.checkLoop()
	go d.claims.run()
}

// Stop stops claiming and releases the deliveries waiting in line, waits
// for the attempts in flight until ctx ends, then cancels them; an attempt
// cut short is retried later (its lease runs out). Last, it releases the
// owner's hold.
func (d *Dispatcher) Stop(ctx context.Context) {
	close(d.claims.stop)
	<-d.claims.stopped
	for owner, ids := range d.claims.dropQueued() {
		if err := d.outbox.Release(ctx, owner, ids); err != nil {
			d.log.Error("release deliveries", "err", err)
		}
	}
	done := make(chan struct{})
	go func() { d.runner.attempts.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.cancel()
		<-done
	}
	d.cancel()
	d.pauses.Stop()
	close(d.runner.quit)
	d.leases.Stop()
}

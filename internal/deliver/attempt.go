package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/snapshot"
	"github.com/pads-dev/pads/internal/store"
)

// runner makes attempts: each claimed delivery is resolved to its
// destination in force, checked (check), sent by its destination type's
// Sender, judged (outcome) and recorded (finish).
type runner struct {
	outbox   store.Outbox
	resolve  Resolver
	senders  map[string]Sender
	log      *slog.Logger
	observer Observer
	opts     Options
	hard     context.Context // attempts run under it; cancelled past the grace
	lanes    *claimer
	pauses   *pauses
	attempts sync.WaitGroup
	// starting holds the attempts about to start, for the lease check
	// (see checkLoop); quit ends checkLoop.
	starting chan work
	quit     chan struct{}
}

// check is what is known to fail before any send: a destination this
// process's config does not know, a payload that does not open, a type no
// sender serves, a format the event has no body for. Pre-attempt checks go
// here; a failure found here is judged by outcome like any other.
func (r *runner) check(c *store.Claimed, dest *Destination) (Result, bool) {
	switch {
	case dest == nil:
		return Result{ErrorClass: ClassDestinationRemoved, Permanent: true}, false
	case c.Unreadable:
		return Result{ErrorClass: ClassPayloadUnreadable, Permanent: true}, false
	case r.senders[dest.Type] == nil:
		return Result{ErrorClass: ClassUnknownType, Permanent: true}, false
	case dest.Format == FormatFHIR && c.FHIR == nil && !c.Snapshot:
		return Result{ErrorClass: ClassNoFHIR, Permanent: true}, false
	}
	return Result{}, true
}

// send makes attempt n of c with its destination's sender, the body of
// the destination's format in force at this attempt (body).
func (r *runner) send(c *store.Claimed, dest *Destination, n int, at time.Time) Result {
	if res, ok := r.check(c, dest); !ok {
		return res
	}
	if res, ok := r.updatedArrived(c); !ok {
		return res
	}
	format, body, err := bodyOf(c, dest.Format)
	if err != nil {
		// A snapshot that does not build (a layout this pads does not
		// know) fails as a payload that does not open: no retry mends it.
		// Its error is not logged: it may quote the snapshot.
		r.log.Error("an event's snapshot does not build a body", "delivery_id", c.ID, "format", format)
		return Result{ErrorClass: ClassPayloadUnreadable, Permanent: true}
	}
	ctx, cancel := context.WithTimeout(r.hard, dest.Timeout)
	defer cancel()
	return r.senders[dest.Type].Send(ctx, dest, Message{
		ID: c.MessageID, DataType: c.DataType, Model: c.Model, Attempt: n, Key: c.Key, FunnelID: c.FunnelID,
		Format: format, Body: body, Timestamp: at,
	})
}

// updatedArrived checks, for a results-updated delivery, that the message
// it names as the one it updates (its snapshot's, for this destination)
// was delivered: an update never names a message its destination did not
// get. A failed one fails the update for good, replayable with it (a
// replay of both sends the earlier first, in record order); a pending
// one, or a store that does not answer, makes it wait (outcome: waiting,
// no try spent). Every other delivery passes.
func (r *runner) updatedArrived(c *store.Claimed) (Result, bool) {
	if c.DataType != record.ResultsUpdated || !c.Snapshot {
		return Result{}, true
	}
	id, err := snapshot.Updates(c.Payload, c.Destination)
	if err != nil {
		return Result{ErrorClass: ClassPayloadUnreadable, Permanent: true}, false
	}
	if id == "" {
		return Result{}, true // names none (a patient delivered again)
	}
	ctx, cancel := context.WithTimeout(r.hard, 10*time.Second)
	defer cancel()
	switch state, err := r.outbox.MessageState(ctx, id); {
	case err == nil && state == store.Delivered, errors.Is(err, store.ErrNotFound):
		// Not found: the retention removed it once it was finished. It
		// was named on its way or delivered, and an erasure would have
		// taken this update with it: send.
		return Result{}, true
	case err == nil && state == store.Failed:
		return Result{ErrorClass: ClassUpdatedUndelivered, Permanent: true}, false
	case err != nil:
		r.log.Warn("read the state of the message an update names; it waits", "delivery_id", c.ID, "err", err)
	}
	return Result{ErrorClass: ClassUpdatedUnconfirmed}, false
}

// bodyOf is the body of format of c's event. An event raised since pads
// keeps a snapshot has its body built now from the snapshot's stored
// values and results (the model is not run again), so it is always the
// destination's current format; an older event sends the payload or the
// FHIR Bundle stored with it.
func bodyOf(c *store.Claimed, format string) (string, []byte, error) {
	if format != FormatFHIR {
		format = FormatSeedJSON
	}
	if c.Snapshot {
		body, err := snapshot.Body(format, c.DataType, c.Payload, c.Destination)
		return format, body, err
	}
	if format == FormatFHIR {
		return format, c.FHIR, nil
	}
	return format, c.Payload, nil
}

// attempt tries one delivery once and records what came of it. Its slot
// in the destination's line is freed as soon as the destination has
// answered: recording the attempt waits for a commit, and holding the slot
// meanwhile would cap a destination at PerDestination deliveries per
// commit, not per round trip.
func (r *runner) attempt(w work) {
	c := &w.Claimed
	defer r.attempts.Done()
	defer r.lanes.forget(c.ID)
	freed := false
	defer func() {
		// A panic (in a sender, say) fails this attempt only: it is logged,
		// its slot is given back, and its lease runs out, so the delivery
		// is tried again.
		if p := recover(); p != nil {
			r.log.Error("panic in a delivery attempt; it will be tried again when its lease ends", "delivery_id", c.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !freed {
				r.lanes.free(c.Ref())
			}
		}
	}()
	if r.pauses.paused(c.Ref()) {
		// Paused while it waited in line: back to the store, untried.
		r.lanes.free(c.Ref())
		freed = true
		if err := r.outbox.Release(r.hard, w.owner, []int64{c.ID}); err != nil {
			r.log.Error("release deliveries", "err", err)
		}
		return
	}
	dest, _ := r.resolve(c.Ref())
	n := c.Attempts + 1
	start := r.opts.Now()
	res := r.send(c, dest, n, start)
	end := r.opts.Now()
	r.lanes.free(c.Ref())
	freed = true

	destType, p := "unknown", Policy{Jitter: r.opts.Jitter}
	if dest != nil {
		destType = dest.Type
		p.Attempts, p.InitialDelay, p.Multiplier = dest.Retry.Attempts, dest.Retry.InitialDelay, dest.Retry.Multiplier
	}
	v := outcome(tried{Result: res, Number: n, Created: c.CreatedAt}, p, end)
	fin := store.Finished{State: v.State, NextAt: v.NextAt, Attempt: store.Attempt{DeliveryID: c.ID, MessageID: c.MessageID,
		Series: c.Series, Number: n, Owner: w.owner, StartedAt: start, Duration: end.Sub(start),
		StatusCode: res.StatusCode, ErrorClass: res.ErrorClass, Response: res.Response}}
	r.observer.ObserveAttempt(destType, v.Label, fin.Duration)
	// A 410 Gone pauses its destination before the delivery is recorded
	// as waiting: no claim may find it due and running.
	paused := res.ErrorClass == ClassGone && r.pauseGone(c.Ref(), end)
	if err := r.finish(fin); err != nil {
		// The lease runs out and the delivery is tried again: at least once.
		r.log.Error("record attempt", "delivery_id", c.ID, "err", err)
		return
	}
	r.opts.Reported(Report{Delivery: c.Delivery, Type: destType, Result: res, Outcome: v.Label, Duration: fin.Duration, Ended: end, Paused: paused})
	if fin.State == store.Pending {
		r.lanes.retryAt(fin.NextAt)
	} else {
		r.lanes.ended(c.Ref())
	}
	if fin.State == store.Failed {
		r.log.Warn("delivery failed", "delivery_id", c.ID, "message_id", c.MessageID, "client", c.Key.ClientID,
			"destination", c.Destination, "data_type", string(c.DataType), "attempts", n, "error_class", res.ErrorClass)
	}
}

// finish records an attempt, trying again while the database is away
// (down, restarting) for up to half a lease: an attempt left unrecorded
// keeps its delivery leased, untried, until the lease ends.
func (r *runner) finish(fin store.Finished) error {
	deadline := r.opts.Now().Add(r.opts.Lease / 2)
	wait := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(r.hard, 30*time.Second)
		err := r.outbox.Finish(ctx, fin)
		cancel()
		if err == nil || !errors.Is(err, store.ErrUnavailable) || r.opts.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-r.hard.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// pauseGone pauses a destination that answered 410 Gone, and reports
// whether this attempt paused it (it was running).
func (r *runner) pauseGone(ref store.DestinationRef, at time.Time) bool {
	ctx, cancel := context.WithTimeout(r.hard, 30*time.Second)
	defer cancel()
	changed, err := r.pauses.pause(ctx, store.Pause{DestinationRef: ref, At: at.UTC(), Reason: ReasonGone, By: ByDestination})
	if err != nil {
		r.log.Error("pause a destination that answered 410 Gone; it is paused in this process only", "client", ref.ClientID,
			"destination", ref.ID, "err", err)
		return false
	}
	if changed {
		r.log.Warn("destination paused: it answered 410 Gone; resume it with pads destinations resume", "client", ref.ClientID, "destination", ref.ID)
	}
	return changed
}

package deliver_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// countingOutbox counts claims, and the claims that skipped full lines and
// found nothing: each of those walked every due delivery of the skipped
// destinations.
type countingOutbox struct {
	store.Outbox
	claims, wasted atomic.Int64
}

func (o *countingOutbox) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	c, err := o.Outbox.Claim(ctx, req)
	o.claims.Add(1)
	if len(req.Skip) > 0 && len(c) == 0 {
		o.wasted.Add(1)
	}
	return c, err
}

// slowSender answers every attempt after a round trip of a millisecond
// (on a synctest bubble's clock) and counts them.
type slowSender struct{ sent atomic.Int64 }

func (s *slowSender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	<-time.After(time.Millisecond)
	s.sent.Add(1)
	return deliver.Result{StatusCode: 200}
}

type noObserver struct{}

func (noObserver) ObserveAttempt(string, string, time.Duration) {}

// A backlog for one destination drains in claims of a line's worth, without
// claims that must skip the destination's full line (and so walk its whole
// backlog to find nothing).
func TestBacklogDrainsWithoutWastedClaims(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const backlog = 400
		mem := newMemOutbox()
		for range backlog {
			mem.add("hook")
		}
		outbox := &countingOutbox{Outbox: mem}
		sender := &slowSender{}
		d := startDispatcher(outbox, sender, nil, deliver.Options{Poll: time.Hour})
		advance(time.Minute)
		d.Stop(context.Background())

		if n := sender.sent.Load(); n != backlog {
			t.Fatalf("sent %d of %d", n, backlog)
		}
		if n := outbox.wasted.Load(); n != 0 {
			t.Errorf("%d claims skipped the full line and found nothing (of %d claims)", n, outbox.claims.Load())
		}
		// 400 deliveries in lines of 32: a claim per refill, some refills
		// finding the line only partly drained.
		if n := outbox.claims.Load(); n > 3*backlog/32 {
			t.Errorf("%d claims for %d deliveries; want at most one per ~%d", n, backlog, 32/3)
		}
	})
}

// blockedOutbox holds every Finish until release is closed.
type blockedOutbox struct {
	store.Outbox
	release chan struct{}
}

func (o *blockedOutbox) Finish(ctx context.Context, f store.Finished) error {
	<-o.release
	return o.Outbox.Finish(ctx, f)
}

// A slot of a destination's line is free once the destination has
// answered, not once the attempt is recorded: recording waits for a commit.
func TestSlotFreedBeforeTheAttemptIsRecorded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const deliveries, perDestination = 6, 2
		mem := newMemOutbox()
		for range deliveries {
			mem.add("hook")
		}
		outbox := &blockedOutbox{Outbox: mem, release: make(chan struct{})}
		sender := &slowSender{}
		d := startDispatcher(outbox, sender, nil, deliver.Options{Poll: 10 * time.Millisecond, PerDestination: perDestination})
		advance(time.Second)
		sent := sender.sent.Load()
		close(outbox.release)
		d.Stop(context.Background())
		if sent != deliveries {
			t.Fatalf("with every Finish held, %d of %d deliveries were sent through %d slots", sent, deliveries, perDestination)
		}
	})
}

// oneWebhook opens a store whose saves (see enqueue) go to one webhook
// destination, and returns the resolver of that destination.
func oneWebhook(t *testing.T) (deliver.Resolver, *harness) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dest := deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "hook"}, Type: "webhook",
		URL: "https://hooks.example.com/pads", Timeout: time.Second, Retry: deliver.Retry{Attempts: 3, InitialDelay: time.Second, Multiplier: 2}}
	resolve := func(ref store.DestinationRef) (*deliver.Destination, bool) { return &dest, ref == dest.Ref }
	saves := storetest.SavesFor(s, map[string]storetest.Client{"acme": {Destinations: []string{"hook"}}})
	return resolve, &harness{Store: s, saves: saves}
}

type harness struct {
	store.Store
	saves *storetest.Saver
}

// enqueue saves n completed forms, each enqueuing one delivery.
func enqueue(t *testing.T, h *harness, n int) {
	t.Helper()
	for i := range n {
		_, err := h.saves.Save(context.Background(), "acme",
			storetest.Request("acme", "", fmt.Sprintf("p%d@example.org", i), record.Fields{FormCompleted: new(true)}))
		if err != nil {
			t.Fatal(err)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// finishedOutbox tells done of every attempt recorded.
type finishedOutbox struct {
	store.Outbox
	done chan struct{}
}

func (o *finishedOutbox) Finish(ctx context.Context, f store.Finished) error {
	err := o.Outbox.Finish(ctx, f)
	select {
	case o.done <- struct{}{}:
	default: // the test has seen one already
	}
	return err
}

// waitForDelivery waits until the store's only delivery has had an attempt
// recorded through o and returns it.
func waitForDelivery(t *testing.T, s store.Store, o *finishedOutbox) store.Delivery {
	t.Helper()
	select {
	case <-o.done:
	case <-time.After(10 * time.Second):
		t.Fatal("no attempt was recorded")
	}
	ds, err := s.Deliveries(context.Background(), store.DeliveryFilter{})
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v, %v", ds, err)
	}
	return ds[0]
}

// A destination this process's config does not know may be one another
// process has just been given: its deliveries wait, looked at every
// minute, for an hour after they were made, and only then fail.
func TestADeliveryToAnUnknownDestinationWaitsOutTheGrace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		age   time.Duration // how long after the save the attempt runs
		state string
	}{
		{"within the grace", 59 * time.Minute, store.Pending},
		{"after the grace", 61 * time.Minute, store.Failed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, s := oneWebhook(t)
			enqueue(t, s, 1)
			unknown := func(store.DestinationRef) (*deliver.Destination, bool) { return nil, false }
			now := func() time.Time { return time.Now().Add(tt.age) }
			sender := &slowSender{}
			o := &finishedOutbox{Outbox: s, done: make(chan struct{}, 1)}
			d := deliver.NewDispatcher(o, unknown, map[string]deliver.Sender{"webhook": sender},
				slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond, Now: now})
			d.Start()
			got := waitForDelivery(t, s, o)
			d.Stop(context.Background())
			if got.State != tt.state || got.LastError != deliver.ClassDestinationRemoved || sender.sent.Load() != 0 {
				t.Fatalf("delivery %+v after %d sends, want %s", got, sender.sent.Load(), tt.state)
			}
			if wait := got.NextAt.Sub(now()); tt.state == store.Pending && (wait < 50*time.Second || wait > time.Minute) {
				t.Fatalf("looked at again in %v, want a minute", wait)
			}
		})
	}
}

// unreadableClaims marks every claimed delivery's payload unreadable, as
// the store does for one sealed under a retired key.
type unreadableClaims struct{ store.Outbox }

func (o unreadableClaims) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	claimed, err := o.Outbox.Claim(ctx, req)
	for i := range claimed {
		claimed[i].Payload, claimed[i].FHIR, claimed[i].Unreadable = nil, nil, true
	}
	return claimed, err
}

// A payload that does not open fails its delivery at once, without a
// send: retrying cannot help until the key is back (then it is replayed).
func TestAnUnreadablePayloadFailsWithoutASend(t *testing.T) {
	t.Parallel()
	resolve, s := oneWebhook(t)
	enqueue(t, s, 1)
	sender := &slowSender{}
	o := &finishedOutbox{Outbox: unreadableClaims{s}, done: make(chan struct{}, 1)}
	d := deliver.NewDispatcher(o, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
	d.Start()
	got := waitForDelivery(t, s, o)
	d.Stop(context.Background())
	if got.State != store.Failed || got.LastError != deliver.ClassPayloadUnreadable || sender.sent.Load() != 0 {
		t.Fatalf("delivery %+v after %d sends", got, sender.sent.Load())
	}
}

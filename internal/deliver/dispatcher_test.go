package deliver_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/payload"
	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/save"
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

type slowSender struct{ sent atomic.Int64 }

func (s *slowSender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	time.Sleep(time.Millisecond)
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
	ctx := context.Background()
	resolve, s := oneWebhook(t)
	const backlog = 400
	enqueue(t, s, backlog)

	outbox := &countingOutbox{Outbox: s}
	sender := &slowSender{}
	d := deliver.NewDispatcher(outbox, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: time.Hour})
	d.Start()
	deadline := time.Now().Add(30 * time.Second)
	for sender.sent.Load() < backlog && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	d.Stop(ctx)

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
	ctx := context.Background()
	resolve, s := oneWebhook(t)
	const deliveries, perDestination = 6, 2
	enqueue(t, s, deliveries)

	outbox := &blockedOutbox{Outbox: s, release: make(chan struct{})}
	sender := &slowSender{}
	d := deliver.NewDispatcher(outbox, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond, PerDestination: perDestination})
	d.Start()
	deadline := time.Now().Add(20 * time.Second)
	for sender.sent.Load() < deliveries && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	sent := sender.sent.Load()
	close(outbox.release)
	d.Stop(ctx)
	if sent != deliveries {
		t.Fatalf("with every Finish held, %d of %d deliveries were sent through %d slots", sent, deliveries, perDestination)
	}
}

// oneWebhook opens a store whose saves (see enqueue) go to one webhook
// destination, and returns the resolver of that destination.
func oneWebhook(t *testing.T) (deliver.Resolver, *harness) {
	t.Helper()
	cfg, err := config.Parse([]byte(`
clients:
  - id: acme
    apiKeys: [{key: "0123456789abcdef"}]
    funnels: [{id: acme-main}]
    destinations:
      - id: hook
        type: webhook
        url: https://hooks.example.com/pads
`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(t, "e1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dest := deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "hook"}, Type: "webhook",
		URL: "https://hooks.example.com/pads", Timeout: time.Second, Retry: deliver.Retry{Attempts: 3, InitialDelay: time.Second, Multiplier: 2}}
	resolve := func(ref store.DestinationRef) (*deliver.Destination, bool) { return &dest, ref == dest.Ref }
	saves := save.New(save.Deps{Store: s, Config: func() *config.Config { return cfg }, Payloads: payload.Encode})
	return resolve, &harness{Store: s, saves: saves}
}

type harness struct {
	store.Store
	saves *save.Service
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

// panickySender panics on its first attempt, then delivers.
type panickySender struct{ calls atomic.Int64 }

func (s *panickySender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	if s.calls.Add(1) == 1 {
		panic("boom")
	}
	return deliver.Result{StatusCode: 200}
}

// A panic in an attempt fails that attempt only: it is logged, the
// dispatcher goes on, and the delivery is tried again once its lease ends.
func TestAPanickingAttemptIsLoggedAndTriedAgain(t *testing.T) {
	t.Parallel()
	resolve, s := oneWebhook(t)
	enqueue(t, s, 1)
	var logs syncBuffer
	sender := &panickySender{}
	d := deliver.NewDispatcher(s, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.NewTextHandler(&logs, nil)), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond, Lease: 200 * time.Millisecond})
	d.Start()
	defer d.Stop(context.Background())
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ds, err := s.Deliveries(context.Background(), store.DeliveryFilter{State: store.Delivered})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := sender.calls.Load(); n != 2 {
		t.Fatalf("%d attempts, want the panicking one and its retry", n)
	}
	if !strings.Contains(logs.String(), "panic in a delivery attempt") {
		t.Fatalf("log:\n%s", logs.String())
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

// flakyFinish answers the first finishes ErrUnavailable, as a database
// that is restarting would.
type flakyFinish struct {
	store.Outbox
	failures atomic.Int64
}

func (o *flakyFinish) Finish(ctx context.Context, f store.Finished) error {
	if o.failures.Add(-1) >= 0 {
		return fmt.Errorf("finish: %w", store.ErrUnavailable)
	}
	return o.Outbox.Finish(ctx, f)
}

// An attempt that cannot be recorded while the database is away is
// recorded once it is back, not left leased until its lease ends.
func TestAnAttemptIsRecordedOnceTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	resolve, s := oneWebhook(t)
	enqueue(t, s, 1)
	outbox := &flakyFinish{Outbox: s}
	outbox.failures.Store(3)
	d := deliver.NewDispatcher(outbox, resolve, map[string]deliver.Sender{"webhook": &slowSender{}},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
	d.Start()
	defer d.Stop(context.Background())
	deadline := time.Now().Add(10 * time.Second) // the lease is 2 minutes
	for time.Now().Before(deadline) {
		if ds, _ := s.Deliveries(context.Background(), store.DeliveryFilter{State: store.Delivered}); len(ds) == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the delivery was not recorded as delivered once the database answered again")
}

// refusedHold is a database that will not let this process hold its owner.
type refusedHold struct {
	store.Outbox
	claims atomic.Int64
}

func (*refusedHold) HoldOwner(context.Context, string) (store.OwnerHold, error) {
	return nil, errors.New("hold owner: too many clients already")
}

func (o *refusedHold) Claim(ctx context.Context, req store.ClaimRequest) ([]store.Claimed, error) {
	o.claims.Add(1)
	return o.Outbox.Claim(ctx, req)
}

// A dispatcher that does not hold its owner claims nothing: another
// process would take such leases over while they are being tried.
func TestNoClaimWithoutAHeldOwner(t *testing.T) {
	t.Parallel()
	resolve, s := oneWebhook(t)
	enqueue(t, s, 1)
	outbox := &refusedHold{Outbox: s}
	sender := &slowSender{}
	d := deliver.NewDispatcher(outbox, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
	d.Start()
	time.Sleep(300 * time.Millisecond)
	d.Stop(context.Background())
	if n, sent := outbox.claims.Load(), sender.sent.Load(); n != 0 || sent != 0 {
		t.Fatalf("%d claims and %d attempts without a held owner", n, sent)
	}
}

// concurrentSender records how many attempts of one message run at once.
type concurrentSender struct {
	mu      sync.Mutex
	running map[string]int
	most    int
	calls   atomic.Int64
}

func (s *concurrentSender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	s.calls.Add(1)
	s.mu.Lock()
	s.running[m.ID]++
	s.most = max(s.most, s.running[m.ID])
	s.mu.Unlock()
	time.Sleep(1500 * time.Millisecond) // longer than the lease
	s.mu.Lock()
	s.running[m.ID]--
	s.mu.Unlock()
	return deliver.Result{StatusCode: 200}
}

// A delivery whose lease runs out while its attempt is under way is not
// started a second time by the process that is trying it.
func TestALeaseThatRunsOutDoesNotStartASecondAttempt(t *testing.T) {
	t.Parallel()
	resolve, s := oneWebhook(t)
	enqueue(t, s, 1)
	sender := &concurrentSender{running: map[string]int{}}
	d := deliver.NewDispatcher(s, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond, Lease: 300 * time.Millisecond})
	d.Start()
	time.Sleep(2 * time.Second)
	d.Stop(context.Background())
	sender.mu.Lock()
	defer sender.mu.Unlock()
	if sender.most != 1 {
		t.Fatalf("%d attempts of one delivery ran at once", sender.most)
	}
}

// waitForDelivery waits until the store's only delivery has had an attempt
// and returns it.
func waitForDelivery(t *testing.T, s store.Store) store.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ds, err := s.Deliveries(context.Background(), store.DeliveryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && ds[0].Attempts > 0 {
			return ds[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no attempt was recorded")
	return store.Delivery{}
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
			d := deliver.NewDispatcher(s, unknown, map[string]deliver.Sender{"webhook": sender},
				slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond, Now: now})
			d.Start()
			got := waitForDelivery(t, s)
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
	d := deliver.NewDispatcher(unreadableClaims{s}, resolve, map[string]deliver.Sender{"webhook": sender},
		slog.New(slog.DiscardHandler), noObserver{}, deliver.Options{Poll: 10 * time.Millisecond})
	d.Start()
	got := waitForDelivery(t, s)
	d.Stop(context.Background())
	if got.State != store.Failed || got.LastError != deliver.ClassPayloadUnreadable || sender.sent.Load() != 0 {
		t.Fatalf("delivery %+v after %d sends", got, sender.sent.Load())
	}
}

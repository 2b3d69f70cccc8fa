package deliver_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// These tests run the dispatcher over memOutbox inside a synctest bubble:
// leases, backoff and takeover are checked to the millisecond on the
// bubble's clock, without a real wait.

// advance moves the bubble's clock on by d, then waits until every
// goroutine in it is blocked: the one sleep of these tests, on a clock
// that is not real.
func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// clockSender answers each attempt with answer(n) (n counts from 1
// across all deliveries) and keeps when each was sent and how many ran at
// once for one message.
type clockSender struct {
	answer  func(ctx context.Context, n int) deliver.Result
	mu      sync.Mutex
	sent    []time.Time
	running map[string]int
	most    int
}

func (s *clockSender) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	s.mu.Lock()
	s.sent = append(s.sent, time.Now())
	n := len(s.sent)
	if s.running == nil {
		s.running = map[string]int{}
	}
	s.running[m.ID]++
	s.most = max(s.most, s.running[m.ID])
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running[m.ID]--
		s.mu.Unlock()
	}()
	if s.answer == nil {
		return deliver.Result{StatusCode: 204}
	}
	return s.answer(ctx, n)
}

// sends returns how long after t0 each attempt was sent.
func (s *clockSender) sends(t0 time.Time) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	for _, at := range s.sent {
		out = append(out, at.Sub(t0))
	}
	return out
}

// hookResolver resolves acme's destinations: every one a webhook with 3
// tries, 1 s then 2 s apart.
func hookResolver(ref store.DestinationRef) (*deliver.Destination, bool) {
	if ref.ClientID != "acme" {
		return nil, false
	}
	return &deliver.Destination{Ref: ref, Type: "webhook", Timeout: 10 * time.Second,
		Retry: deliver.Retry{Attempts: 3, InitialDelay: time.Second, Multiplier: 2}}, true
}

func startDispatcher(o store.Outbox, s deliver.Sender, log *slog.Logger, opts deliver.Options) *deliver.Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts.Jitter = func() float64 { return 0 }
	d := deliver.NewDispatcher(o, hookResolver, map[string]deliver.Sender{"webhook": s}, log, noObserver{}, opts)
	d.Start()
	return d
}

func fail(class string, retryAfter time.Duration) deliver.Result {
	return deliver.Result{StatusCode: 503, ErrorClass: class, RetryAfter: retryAfter}
}

// A failed attempt is tried again at the time the policy (or the
// destination's Retry-After) says, to the poll's precision, and no sooner;
// the last try fails the delivery for good.
func TestRetriesFollowTheBackoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		answers []deliver.Result
		sends   []time.Duration
		state   string
		poll    time.Duration
	}{
		{"1 s then 2 s apart, then delivered", []deliver.Result{fail("http_5xx", 0), fail("http_5xx", 0), {StatusCode: 200}},
			[]time.Duration{0, time.Second, 3 * time.Second}, store.Delivered, 0},
		{"three failures fail it for good", []deliver.Result{fail("http_5xx", 0), fail("http_5xx", 0), fail("http_5xx", 0)},
			[]time.Duration{0, time.Second, 3 * time.Second}, store.Failed, 0},
		{"Retry-After holds the retry back", []deliver.Result{fail("http_5xx", 90*time.Second), {StatusCode: 200}},
			[]time.Duration{0, 90 * time.Second}, store.Delivered, 0},
		{"a retry sooner than the poll does not wait for it", []deliver.Result{fail("http_5xx", 0), fail("http_5xx", 0), {StatusCode: 200}},
			[]time.Duration{0, time.Second, 3 * time.Second}, store.Delivered, time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				o := newMemOutbox()
				id := o.add("hook")
				s := &clockSender{answer: func(_ context.Context, n int) deliver.Result { return tt.answers[n-1] }}
				t0 := time.Now()
				d := startDispatcher(slowFinish{o}, s, nil, deliver.Options{Poll: tt.poll})
				advance(5 * time.Minute)
				d.Stop(context.Background())
				if got := s.sends(t0); !equalDurations(got, tt.sends) {
					t.Errorf("sent at %v, want %v", got, tt.sends)
				}
				if got := o.delivery(id).State; got != tt.state {
					t.Errorf("state %s, want %s", got, tt.state)
				}
			})
		})
	}
}

// slowFinish records an attempt 10 ms after it is asked to, as a commit
// does: the claimer has gone back to sleep before the retry is in the
// store.
type slowFinish struct{ *memOutbox }

func (o slowFinish) Finish(ctx context.Context, f store.Finished) error {
	<-time.After(10 * time.Millisecond)
	return o.memOutbox.Finish(ctx, f)
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// An attempt that cannot be recorded while the database is away is
// recorded once it is back (after 100, 200 and 400 ms of backoff), not
// left leased until its lease ends; and it is sent once.
func TestAnAttemptIsRecordedOnceTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		o.unavailable = 3
		id := o.add("hook")
		s := &clockSender{}
		d := startDispatcher(o, s, nil, deliver.Options{})
		defer d.Stop(context.Background())
		advance(699 * time.Millisecond)
		if got := o.delivery(id).State; got != store.Pending {
			t.Fatalf("state %s before the third retry of the record", got)
		}
		advance(time.Millisecond)
		if got := o.delivery(id).State; got != store.Delivered {
			t.Fatalf("state %s once the database answered again", got)
		}
		if n := len(s.sends(time.Time{})); n != 1 {
			t.Fatalf("%d sends, want 1", n)
		}
	})
}

// A dispatcher that does not hold its owner claims nothing: another
// process would take such leases over while they are being tried.
func TestNoClaimWithoutAHeldOwner(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		o.refuseHold = true
		o.add("hook")
		s := &clockSender{}
		d := startDispatcher(o, s, nil, deliver.Options{})
		advance(10 * time.Second)
		d.Stop(context.Background())
		if n, sent := len(o.claimLog()), len(s.sends(time.Time{})); n != 0 || sent != 0 {
			t.Fatalf("%d claims and %d attempts without a held owner", n, sent)
		}
	})
}

// A delivery whose lease runs out while its attempt is under way is not
// started a second time by the process that is trying it.
func TestALeaseThatRunsOutDoesNotStartASecondAttempt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		o.add("hook")
		s := &clockSender{answer: func(ctx context.Context, _ int) deliver.Result {
			<-time.After(1500 * time.Millisecond) // five leases
			return deliver.Result{StatusCode: 200}
		}}
		d := startDispatcher(o, s, nil, deliver.Options{Poll: 10 * time.Millisecond, Lease: 300 * time.Millisecond})
		advance(2 * time.Second)
		d.Stop(context.Background())
		if s.most != 1 || len(s.sent) != 1 {
			t.Fatalf("%d attempts, %d of one delivery at once", len(s.sent), s.most)
		}
		if len(o.claimLog()) < 2 {
			t.Fatal("no claim found the delivery again once its lease ran out; the test proves nothing")
		}
	})
}

// A panic in an attempt fails that attempt only: it is logged, the
// dispatcher goes on, and the delivery is tried again once its lease ends.
func TestAPanickingAttemptIsLoggedAndTriedAgain(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		id := o.add("hook")
		var logs syncBuffer
		s := &clockSender{answer: func(_ context.Context, n int) deliver.Result {
			if n == 1 {
				panic("boom")
			}
			return deliver.Result{StatusCode: 200}
		}}
		t0 := time.Now()
		d := startDispatcher(o, s, slog.New(slog.NewTextHandler(&logs, nil)), deliver.Options{Poll: 10 * time.Millisecond, Lease: 200 * time.Millisecond})
		advance(time.Second)
		d.Stop(context.Background())
		if got, want := s.sends(t0), []time.Duration{0, 200 * time.Millisecond}; !equalDurations(got, want) {
			t.Fatalf("sent at %v, want the panicking attempt and its retry once the lease ended: %v", got, want)
		}
		if o.delivery(id).State != store.Delivered || !strings.Contains(logs.String(), "panic in a delivery attempt") {
			t.Fatalf("state %s, log:\n%s", o.delivery(id).State, logs.String())
		}
	})
}

// The deliveries a process that is gone had claimed are taken over at the
// next takeover (every 2 s), not when their lease ends; those of a process
// that is alive, however slow, are left alone until their lease ends.
func TestTakeOver(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		alive bool
		sent  time.Duration
	}{
		{"a process that is gone", false, 2 * time.Second},
		{"a process that is alive", true, 2 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				o := newMemOutbox()
				s := &clockSender{}
				t0 := time.Now()
				d := startDispatcher(o, s, nil, deliver.Options{})
				defer d.Stop(context.Background())
				advance(time.Second) // the first takeover is behind us
				if tt.alive {
					h, _ := o.HoldOwner(context.Background(), "other/1")
					defer h.Release()
				}
				id := o.add("hook")
				o.lease(id, "other/1", t0.Add(2*time.Minute))
				advance(3 * time.Minute)
				if got := s.sends(t0); len(got) != 1 || got[0] != tt.sent {
					t.Fatalf("sent at %v, want once at %v", got, tt.sent)
				}
			})
		})
	}
}

// A hold that broke (the database restarted) may have been taken over:
// the dispatcher claims under a new owner from then on.
func TestAHoldThatBreaksClaimsUnderANewOwner(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		s := &clockSender{}
		d := startDispatcher(o, s, nil, deliver.Options{})
		defer d.Stop(context.Background())
		first := o.add("hook")
		d.Notify(store.DestinationRef{ClientID: "acme", ID: "hook"})
		synctest.Wait()
		o.breakHolds()
		advance(2 * time.Second) // the next check finds the hold lost
		second := o.add("hook")
		d.Notify(store.DestinationRef{ClientID: "acme", ID: "hook"})
		synctest.Wait()
		owners := map[int64]string{}
		for _, c := range o.claimLog() {
			for _, id := range c.ids {
				owners[id] = c.owner
			}
		}
		if owners[first] == "" || owners[second] == "" || owners[first] == owners[second] {
			t.Fatalf("claimed by %q then %q, want two owners", owners[first], owners[second])
		}
		if o.delivery(first).State != store.Delivered || o.delivery(second).State != store.Delivered {
			t.Fatal("not both delivered")
		}
	})
}

// A destination that hangs holds at most PerDestination attempts; the
// others' deliveries go out meanwhile.
func TestAHangingDestinationDelaysNoOther(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		hangs := make(chan struct{})
		var mu sync.Mutex
		perDest := map[string]int{}
		s := senderFunc(func(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
			mu.Lock()
			perDest[d.Ref.ID]++
			mu.Unlock()
			if d.Ref.ID == "slow" {
				<-hangs
			}
			return deliver.Result{StatusCode: 200}
		})
		for range 10 {
			o.add("slow")
		}
		fast := []int64{o.add("fast"), o.add("fast")}
		d := startDispatcher(o, s, nil, deliver.Options{PerDestination: 4})
		advance(time.Second)
		mu.Lock()
		slow := perDest["slow"]
		mu.Unlock()
		close(hangs)
		d.Stop(context.Background())
		if slow != 4 {
			t.Errorf("%d attempts to the hanging destination at once, want PerDestination (4)", slow)
		}
		for _, id := range fast {
			if got := o.delivery(id).State; got != store.Delivered {
				t.Errorf("delivery %d to the other destination: %s", id, got)
			}
		}
	})
}

type senderFunc func(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result

func (f senderFunc) Send(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	return f(ctx, d, m)
}

// Deliveries erased with their patient while this process holds them
// claimed (waiting in their destination's line) are never attempted; the
// attempts already in flight end.
func TestNoAttemptStartsAfterAnErasureOfClaimedDeliveries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		hangs := make(chan struct{})
		var sent atomic.Int32
		s := senderFunc(func(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
			sent.Add(1)
			<-hangs
			return deliver.Result{StatusCode: 200}
		})
		var ids []int64
		for range 6 {
			ids = append(ids, o.add("hook"))
		}
		d := startDispatcher(o, s, nil, deliver.Options{PerDestination: 2})
		advance(time.Second)
		if got := sent.Load(); got != 2 {
			t.Fatalf("%d attempts in flight, want PerDestination (2)", got)
		}
		claimed := 0
		for _, id := range ids {
			if o.erase(id) {
				claimed++
			}
		}
		if claimed <= 2 {
			t.Fatalf("only %d of the erased deliveries were claimed; the test proves nothing", claimed)
		}
		close(hangs)
		advance(time.Minute)
		d.Stop(context.Background())
		if got := sent.Load(); got != 2 {
			t.Fatalf("%d attempts, want only the 2 in flight at the erasure", got)
		}
	})
}

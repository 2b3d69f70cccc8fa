package deliver_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// anyResolver resolves every client's destinations as webhooks.
func anyResolver(ref store.DestinationRef) (*deliver.Destination, bool) {
	return &deliver.Destination{Ref: ref, Type: "webhook", Timeout: 10 * time.Second,
		Retry: deliver.Retry{Attempts: 3, InitialDelay: time.Second, Multiplier: 2}}, true
}

// Many destinations that hang, each with a backlog, of one client or of
// many, hold no more than their fair share: another client's delivery
// goes out at once, no client has more than PerClient attempts in flight,
// and the dispatcher no more than Workers. (Before the fair share, eight
// destinations hanging PerDestination attempts each held every worker,
// and another client's delivery waited for them.)
func TestManyHangingDestinationsLeaveRoomForOthers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		bad, badUsers int
	}{
		{"8 destinations of one client", 8, 1},
		{"8 destinations of 8 clients", 8, 8},
		{"24 destinations of 4 clients", 24, 4},
		{"24 destinations of 24 clients", 24, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				const workers, perClient = 64, 16
				o := newMemOutbox()
				hangs := make(chan struct{})
				var mu sync.Mutex
				inflight, byClient, most := 0, map[string]int{}, 0
				mostByClient := map[string]int{}
				s := senderFunc(func(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
					c := d.Ref.ClientID
					mu.Lock()
					inflight++
					byClient[c]++
					most, mostByClient[c] = max(most, inflight), max(mostByClient[c], byClient[c])
					mu.Unlock()
					defer func() {
						mu.Lock()
						inflight--
						byClient[c]--
						mu.Unlock()
					}()
					if c != "good" {
						hang(ctx, hangs)
					}
					return deliver.Result{StatusCode: 200}
				})
				ofClient := map[string][]store.DestinationRef{}
				for i := range tc.bad {
					ref := store.DestinationRef{ClientID: fmt.Sprintf("bad%d", i%tc.badUsers), ID: fmt.Sprintf("hook%d", i)}
					ofClient[ref.ClientID] = append(ofClient[ref.ClientID], ref)
					for range 40 {
						o.addFor(ref.ClientID, ref.ID)
					}
				}
				d := deliver.NewDispatcher(o, anyResolver, map[string]deliver.Sender{"webhook": s}, slog.New(slog.DiscardHandler), noObserver{},
					deliver.Options{Workers: workers, PerDestination: 16, PerClient: perClient, Jitter: func() float64 { return 0 },
						ClientDestinations: func(c string) []store.DestinationRef { return ofClient[c] }})
				d.Start()
				advance(time.Second)
				good := []int64{o.addFor("good", "hook"), o.addFor("good", "hook")}
				d.Notify(store.DestinationRef{ClientID: "good", ID: "hook"})
				advance(time.Second)
				for _, id := range good {
					if got := o.delivery(id).State; got != store.Delivered {
						t.Errorf("another client's delivery %d: %s after a second", id, got)
					}
				}
				if waited := d.OldestWaiting(); waited == 0 {
					t.Error("deliveries claimed and waiting in line count in no oldest wait")
				}
				close(hangs)
				d.Stop(context.Background())
				mu.Lock()
				defer mu.Unlock()
				if most > workers {
					t.Errorf("%d attempts in flight, want at most Workers (%d)", most, workers)
				}
				for c, n := range mostByClient {
					if n > perClient {
						t.Errorf("client %s had %d attempts in flight, want at most PerClient (%d)", c, n, perClient)
					}
				}
			})
		})
	}
}

// A delivery claimed and waiting in line counts in OldestWaiting from
// when it became due, not from its claim: deliveries due for a minute
// before pads claimed them (pads was down, or their destination's line
// was full) have waited a minute, not the moment since the claim.
func TestAWaitingDeliveryCountsFromWhenItBecameDue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		hangs := make(chan struct{})
		s := hangingSender(hangs, deliver.Result{StatusCode: 200})
		for range 10 {
			o.add("slow")
		}
		advance(time.Minute) // due all along, not claimed yet
		d := deliver.NewDispatcher(o, anyResolver, map[string]deliver.Sender{"webhook": s}, slog.New(slog.DiscardHandler), noObserver{},
			deliver.Options{Workers: 8, PerDestination: 2, PerClient: 2, Jitter: func() float64 { return 0 }})
		d.Start()
		advance(time.Second)
		if waited := d.OldestWaiting(); waited < time.Minute+time.Second {
			t.Errorf("OldestWaiting = %v, want at least 1m1s: the deliveries in line were due a minute before their claim", waited)
		}
		close(hangs)
		d.Stop(context.Background())
	})
}

// A claim gives each destination no more than its line can take, so one
// claim reaches a healthy destination past the due backlog of many lines
// with a little room each. 32 hanging destinations of 32 clients, 50
// deliveries queued each, one destination after the other: before, each
// claim's 32 went in due order to the first line with room, which kept
// what fit and released the rest, so a healthy save waited for a claim
// per line (48 claims at the start, 26-30 after each wave of timeouts;
// on PostgreSQL, under load, p99 0.7-0.9 s); now its delivery comes
// within a few claims.
func TestAClaimReachesEveryLineWithRoom(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		hangs := make(chan struct{})
		s := hangingSender(hangs, deliver.Result{ErrorClass: "timeout"})
		ofClient := map[string][]store.DestinationRef{}
		for i := range 32 {
			ref := store.DestinationRef{ClientID: fmt.Sprintf("bad%d", i), ID: "hook"}
			ofClient[ref.ClientID] = []store.DestinationRef{ref}
			for range 50 {
				o.addFor(ref.ClientID, ref.ID)
			}
		}
		d := deliver.NewDispatcher(o, anyResolver, map[string]deliver.Sender{"webhook": s}, slog.New(slog.DiscardHandler), noObserver{},
			deliver.Options{Jitter: func() float64 { return 0 }, ClientDestinations: func(c string) []store.DestinationRef { return ofClient[c] }})
		d.Start()
		// 30 healthy saves over 15 s: the first while the lines fill, one
		// as the first attempts time out (10 s) and their retries fall due.
		for step := range 30 {
			advance(500 * time.Millisecond)
			before := len(o.claimLog())
			id := o.addFor("good", "hook")
			d.Notify(store.DestinationRef{ClientID: "good", ID: "hook"})
			advance(time.Millisecond)
			claims := o.claimLog()[before:]
			at := slices.IndexFunc(claims, func(c memClaim) bool { return slices.Contains(c.ids, id) })
			if at < 0 || at >= 5 {
				t.Errorf("save %d: its delivery came in claim %d of %d after it; want one of the first 5", step, at+1, len(claims))
			}
		}
		close(hangs)
		d.Stop(context.Background())
	})
}

// hangingSender answers client good's destinations at once (200) and
// hangs for every other (see hang), then answers with after.
func hangingSender(hangs <-chan struct{}, after deliver.Result) senderFunc {
	return func(ctx context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
		if d.Ref.ClientID == "good" {
			return deliver.Result{StatusCode: 200}
		}
		hang(ctx, hangs)
		return after
	}
}

// hang is a destination that does not answer: it returns once hangs is
// closed or the attempt's ctx ends (its timeout, or the dispatcher's stop).
func hang(ctx context.Context, hangs <-chan struct{}) {
	select {
	case <-hangs:
	case <-ctx.Done():
	}
}

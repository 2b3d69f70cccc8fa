package deliver_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// memPauses is store.Pauses in memory.
type memPauses struct {
	mu  sync.Mutex
	set map[store.DestinationRef]store.Pause
}

func newMemPauses(paused ...string) *memPauses {
	p := &memPauses{set: map[store.DestinationRef]store.Pause{}}
	for _, id := range paused {
		ref := store.DestinationRef{ClientID: "acme", ID: id}
		p.set[ref] = store.Pause{DestinationRef: ref, By: "test"}
	}
	return p
}

func (p *memPauses) PauseDestination(_ context.Context, ps store.Pause) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.set[ps.DestinationRef]; ok {
		return false, nil
	}
	p.set[ps.DestinationRef] = ps
	return true, nil
}

func (p *memPauses) ResumeDestination(_ context.Context, ref store.DestinationRef) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.set[ref]
	delete(p.set, ref)
	return ok, nil
}

func (p *memPauses) PausedDestinations(context.Context) ([]store.Pause, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []store.Pause
	for _, ps := range p.set {
		out = append(out, ps)
	}
	return out, nil
}

// destSender records which destination each attempt went to, and answers
// with answer(destination) (204 when nil).
type destSender struct {
	answer func(dest string) deliver.Result
	mu     sync.Mutex
	sent   []sent
}

type sent struct {
	dest string
	id   string
	at   time.Time
}

func (s *destSender) Send(_ context.Context, d *deliver.Destination, m deliver.Message) deliver.Result {
	s.mu.Lock()
	s.sent = append(s.sent, sent{d.Ref.ID, m.ID, time.Now()})
	s.mu.Unlock()
	if s.answer == nil {
		return deliver.Result{StatusCode: 204}
	}
	return s.answer(d.Ref.ID)
}

func (s *destSender) to(dest string) []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sent
	for _, x := range s.sent {
		if x.dest == dest {
			out = append(out, x)
		}
	}
	return out
}

// A paused destination is sent nothing and its deliveries use no attempt,
// while another destination's go at once; resumed (by another process,
// seen at the next refresh), its deliveries go, in the order they were
// made.
func TestAPausedDestinationWaitsAndGoesInOrderOnceResumed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		for range 3 {
			o.add("paused")
		}
		o.add("other")
		pauses := newMemPauses("paused")
		s := &destSender{}
		// One at a time: the order they go in is the order they are claimed
		// (per-record order itself is the store's, tested in storetest).
		d := startDispatcher(o, s, nil, deliver.Options{Pauses: pauses, PerDestination: 1})
		defer d.Stop(context.Background())
		advance(10 * time.Second)
		if n := len(s.to("paused")); n != 0 {
			t.Fatalf("a paused destination was sent %d deliveries", n)
		}
		if n := len(s.to("other")); n != 1 {
			t.Fatalf("the other destination got %d deliveries, want 1", n)
		}
		for id := int64(1); id <= 3; id++ {
			if dl := o.delivery(id); dl.State != store.Pending || dl.Attempts != 0 {
				t.Fatalf("delivery %d while paused: %s after %d attempts", id, dl.State, dl.Attempts)
			}
		}
		pauses.ResumeDestination(context.Background(), store.DestinationRef{ClientID: "acme", ID: "paused"})
		t0 := time.Now()
		advance(deliver.PauseRefresh)
		got := s.to("paused")
		if len(got) != 3 || got[2].at.Sub(t0) > deliver.PauseRefresh {
			t.Fatalf("after the resume: %v", got)
		}
		if ids := []string{got[0].id, got[1].id, got[2].id}; !slices.Equal(ids, []string{"msg_1", "msg_2", "msg_3"}) {
			t.Fatalf("resumed in the order %v", ids)
		}
	})
}

// A 410 Gone pauses its destination: the attempt is recorded with its own
// class, the delivery waits pending, nothing more goes to it, and the
// report says the attempt paused it.
func TestA410GonePausesItsDestination(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		o.add("gone")
		o.add("gone")
		pauses := newMemPauses()
		s := &destSender{answer: func(string) deliver.Result { return deliver.Result{StatusCode: 410, ErrorClass: deliver.ClassGone} }}
		var mu sync.Mutex
		var reports []deliver.Report
		d := startDispatcher(o, s, nil, deliver.Options{Pauses: pauses, PerDestination: 1,
			Reported: func(r deliver.Report) { mu.Lock(); reports = append(reports, r); mu.Unlock() }})
		defer d.Stop(context.Background())
		advance(time.Minute)
		if n := len(s.to("gone")); n != 1 {
			t.Fatalf("%d attempts to a destination that answered 410 Gone", n)
		}
		if dl := o.delivery(1); dl.State != store.Pending || dl.LastError != deliver.ClassGone {
			t.Fatalf("delivery 1: %s, %q", dl.State, dl.LastError)
		}
		list, _ := pauses.PausedDestinations(context.Background())
		if len(list) != 1 || list[0].ID != "gone" || list[0].By != deliver.ByDestination || list[0].Reason != deliver.ReasonGone {
			t.Fatalf("pauses %+v", list)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reports) != 1 || !reports[0].Paused || reports[0].Outcome != "paused" {
			t.Fatalf("reports %+v", reports)
		}
	})
}

// maxPerSecond: 1 spaces a destination's deliveries a second apart (5 of
// them span 4 s), while another destination's all go at once.
func TestMaxPerSecondSpacesOneDestinationOnly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newMemOutbox()
		for range 5 {
			o.add("slow")
			o.add("fast")
		}
		s := &destSender{}
		t0 := time.Now()
		d := startDispatcher(o, s, nil, deliver.Options{MaxPerSecond: func(ref store.DestinationRef) float64 {
			if ref.ID == "slow" {
				return 1
			}
			return 0
		}})
		defer d.Stop(context.Background())
		advance(10 * time.Second)
		var slow, fast []time.Duration
		for _, x := range s.to("slow") {
			slow = append(slow, x.at.Sub(t0).Round(10*time.Millisecond))
		}
		for _, x := range s.to("fast") {
			fast = append(fast, x.at.Sub(t0))
		}
		if want := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}; !slices.Equal(slow, want) {
			t.Fatalf("the limited destination's sends at %v, want %v", slow, want)
		}
		if len(fast) != 5 || fast[4] != 0 {
			t.Fatalf("the other destination's sends at %v, want all at once", fast)
		}
	})
}

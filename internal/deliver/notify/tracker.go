package notify

import (
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/store"
)

// FailedWindow is how often at most delivery.failed is sent per
// destination.
const FailedWindow = time.Hour

// Tracker turns attempts' outcomes into operator events: it counts each
// destination's failed attempts in a row, and the deliveries that failed
// for good since the destination's last delivery.failed. It is safe for
// concurrent use; it counts what this process sees.
type Tracker struct {
	mu    sync.Mutex
	after func() int // destinations.failingAfter in force
	dests map[store.DestinationRef]*health
}

// health is one destination's recent attempts.
type health struct {
	failures int  // attempts in a row that failed
	failing  bool // destination.failing was sent for this run
	// lastFailedEvent is when delivery.failed was last sent; unsent
	// counts the deliveries failed for good since then.
	lastFailedEvent time.Time
	unsent          int
}

// NewTracker returns a Tracker; failingAfter returns the number of failed
// attempts in a row that make a destination failing (it may change on a
// reload).
func NewTracker(failingAfter func() int) *Tracker {
	return &Tracker{after: failingAfter, dests: map[store.DestinationRef]*health{}}
}

// Observe returns the events an attempt's outcome makes, at now.
func (t *Tracker) Observe(o Outcome, now time.Time) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.dests[o.Destination]
	if h == nil {
		h = &health{}
		t.dests[o.Destination] = h
	}
	base := Data{Client: o.Destination.ClientID, Destination: o.Destination.ID}
	var out []Event
	if o.OK {
		if h.failing {
			d := base
			d.ConsecutiveFailures = h.failures
			out = append(out, Event{Type: DestinationRecovered, Timestamp: now, Data: d})
		}
		h.failures, h.failing = 0, false
		return out
	}
	h.failures++
	if !h.failing && h.failures >= t.after() {
		h.failing = true
		d := base
		d.ConsecutiveFailures, d.ErrorClass, d.StatusCode = h.failures, o.ErrorClass, o.StatusCode
		out = append(out, Event{Type: DestinationFailing, Timestamp: now, Data: d})
	}
	if o.FailedForGood {
		h.unsent++
		if h.lastFailedEvent.IsZero() || now.Sub(h.lastFailedEvent) >= FailedWindow {
			d := base
			d.DeliveryID, d.MessageID, d.DataType = o.DeliveryID, o.MessageID, o.DataType
			d.ErrorClass, d.StatusCode, d.FailedForGood = o.ErrorClass, o.StatusCode, h.unsent
			out = append(out, Event{Type: DeliveryFailed, Timestamp: now, Data: d})
			h.lastFailedEvent, h.unsent = now, 0
		}
	}
	return out
}

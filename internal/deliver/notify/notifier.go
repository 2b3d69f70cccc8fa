package notify

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/record"
)

// EventOperator is the X-<ServiceName>-Event of an operator event.
const EventOperator record.DataType = "operator"

// Limits of the Notifier: events wait in a queue per endpoint, and each is
// tried a few times before it is dropped (with a log line). Operator events
// are a signal, not a record: the deliveries and the console stay the
// truth, and a full queue must never hold up deliveries.
const (
	QueueSize = 256
	Tries     = 3
)

// Notifier sends operator events to the operator endpoints in force.
type Notifier struct {
	sender    deliver.Sender
	endpoints func() []deliver.Destination
	logger    *slog.Logger
	now       func() time.Time
	// backoff is the wait before try n+1 (n from 1).
	backoff func(n int) time.Duration

	mu     sync.Mutex
	queues map[string]chan Event // by endpoint id
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a Notifier that sends through sender (the webhook sender) to
// endpoints() (operator endpoints in force; they change on reload).
func New(sender deliver.Sender, endpoints func() []deliver.Destination, logger *slog.Logger) *Notifier {
	ctx, cancel := context.WithCancel(context.Background())
	return &Notifier{sender: sender, endpoints: endpoints, logger: logger, now: time.Now,
		backoff: func(n int) time.Duration { return time.Duration(n*n) * 2 * time.Second },
		queues:  map[string]chan Event{}, ctx: ctx, cancel: cancel}
}

// SetBackoff replaces the wait before try n+1 (default 2 s times n²);
// for tests.
func (n *Notifier) SetBackoff(f func(n int) time.Duration) { n.backoff = f }

// Publish queues events for every operator endpoint; it never blocks. An
// endpoint whose queue is full loses the event (logged).
func (n *Notifier) Publish(events ...Event) {
	if len(events) == 0 {
		return
	}
	for _, ep := range n.endpoints() {
		q := n.queue(ep.Ref.ID)
		if q == nil {
			return // stopped
		}
		for _, e := range events {
			select {
			case q <- e:
			default:
				n.logger.Warn("operator event dropped: its endpoint's queue is full", "endpoint", ep.Ref.ID, "type", e.Type)
			}
		}
	}
}

// queue returns the endpoint's queue, starting its sender on first use.
func (n *Notifier) queue(id string) chan Event {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ctx.Err() != nil {
		return nil
	}
	q, ok := n.queues[id]
	if !ok {
		q = make(chan Event, QueueSize)
		n.queues[id] = q
		n.wg.Add(1)
		go n.run(id, q)
	}
	return q
}

// Send sends events to every endpoint now, each tried up to Tries times,
// and returns once they are sent or given up (logged): for a command
// that acts and exits (pads destinations pause).
func (n *Notifier) Send(events ...Event) {
	var wg sync.WaitGroup
	for _, ep := range n.endpoints() {
		wg.Go(func() {
			for _, e := range events {
				n.deliver(ep.Ref.ID, e)
			}
		})
	}
	wg.Wait()
}

// Stop ends the senders; events still queued are dropped.
func (n *Notifier) Stop() {
	n.mu.Lock()
	n.cancel()
	n.mu.Unlock()
	n.wg.Wait()
}

func (n *Notifier) run(id string, q chan Event) {
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case e := <-q:
			n.deliver(id, e)
		}
	}
}

// deliver sends one event to the endpoint with the id in force, trying up
// to Tries times; the same webhook-id on every try.
func (n *Notifier) deliver(id string, e Event) {
	body, err := json.Marshal(e)
	if err != nil {
		return
	}
	m := deliver.Message{ID: deliver.NewMessageID(), DataType: EventOperator, Format: deliver.FormatSeedJSON, Body: body}
	for try := 1; try <= Tries; try++ {
		ep, ok := n.endpoint(id)
		if !ok {
			return // removed by a reload
		}
		m.Attempt, m.Timestamp = try, n.now()
		ctx, cancel := context.WithTimeout(n.ctx, ep.Timeout)
		res := n.sender.Send(ctx, &ep, m)
		cancel()
		if res.ErrorClass == "" {
			return
		}
		if try == Tries || n.ctx.Err() != nil {
			n.logger.Warn("operator event not delivered", "endpoint", id, "type", e.Type, "error_class", res.ErrorClass, "status", res.StatusCode)
			return
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(n.backoff(try)):
		}
	}
}

func (n *Notifier) endpoint(id string) (deliver.Destination, bool) {
	for _, ep := range n.endpoints() {
		if ep.Ref.ID == id {
			return ep, true
		}
	}
	return deliver.Destination{}, false
}

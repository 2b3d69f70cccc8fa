package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Other is the client and destination label of an attempt to a
// destination no longer in the config: the labels stay bounded by the
// config's destinations, whatever the deliveries stored name.
const Other = "other"

// destinations are the per-destination delivery metrics, labelled client
// and destination (the destination's id).
type destinations struct {
	attempts *prometheus.CounterVec
	latency  *prometheus.HistogramVec

	mu    sync.RWMutex
	known map[[2]string]bool
}

func newDestinations() *destinations {
	return &destinations{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_destination_attempts_total",
			Help: "Delivery attempts by client, destination id and outcome (delivered, retry, failed, paused).",
		}, []string{"client", "destination", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pads_delivery_latency_seconds",
			Help:    "From the save that raised an event to its destination's 2xx, by client and destination id.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400},
		}, []string{"client", "destination"}),
		known: map[[2]string]bool{},
	}
}

// SetDestinations bounds the client and destination labels to the
// config's destinations (client, destination id pairs);
// call it at every load.
func (m *Metrics) SetDestinations(pairs [][2]string) {
	known := make(map[[2]string]bool, len(pairs))
	for _, p := range pairs {
		known[p] = true
	}
	m.dests.mu.Lock()
	m.dests.known = known
	m.dests.mu.Unlock()
}

func (d *destinations) labels(client, destination string) (string, string) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if !d.known[[2]string{client, destination}] {
		return Other, Other
	}
	return client, destination
}

// ObserveDestinationAttempt counts one attempt to a destination; a
// delivered one also records how long it took from its save.
func (m *Metrics) ObserveDestinationAttempt(client, destination, outcome string, sinceSave time.Duration) {
	c, d := m.dests.labels(client, destination)
	m.dests.attempts.WithLabelValues(c, d, outcome).Inc()
	if outcome == "delivered" {
		m.dests.latency.WithLabelValues(c, d).Observe(sinceSave.Seconds())
	}
}

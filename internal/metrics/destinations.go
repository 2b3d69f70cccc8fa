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
	redFlags *prometheus.CounterVec

	mu      sync.RWMutex
	known   map[[2]string]bool
	clients map[string]bool
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
		redFlags: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_results_updated_red_flags_total",
			Help: "Later saves of a completed assessment that brought a red flag its results did not have (a results-updated event), by client.",
		}, []string{"client"}),
		known: map[[2]string]bool{},
	}
}

// SetDestinations bounds the client and destination labels to the
// config's destinations (client, destination id pairs) and their clients;
// call it at every load.
func (m *Metrics) SetDestinations(pairs [][2]string) {
	known := make(map[[2]string]bool, len(pairs))
	clients := map[string]bool{}
	for _, p := range pairs {
		known[p], clients[p[0]] = true, true
	}
	m.dests.mu.Lock()
	m.dests.known, m.dests.clients = known, clients
	m.dests.mu.Unlock()
	// Each client's red-flag series exists from the load on, at 0, so an
	// alert on any increase sees the first red flag after a start.
	m.dests.redFlags.WithLabelValues(Other)
	for c := range clients {
		m.dests.redFlags.WithLabelValues(c)
	}
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

// ObserveRedFlag counts a results-updated event that brings a red flag the
// delivered results did not have.
func (m *Metrics) ObserveRedFlag(client string) {
	if !m.dests.knownClient(client) {
		client = Other
	}
	m.dests.redFlags.WithLabelValues(client).Inc()
}

func (d *destinations) knownClient(client string) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.clients[client]
}

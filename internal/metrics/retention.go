package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Retention are the retention sweep's instruments (docs/data-lifecycle.md).
type Retention struct {
	removed *prometheus.CounterVec
	passes  *prometheus.CounterVec
	kept    *prometheus.GaugeVec
}

// RegisterRetention registers the sweep's metrics; call it once.
func (m *Metrics) RegisterRetention() *Retention {
	r := &Retention{
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_retention_removed_total",
			Help: "What the retention sweep removed, by kind (bodies, deliveries, attempts, events, records).",
		}, []string{"kind"}),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pads_retention_passes_total",
			Help: "Passes of the retention sweep, by outcome (ok, failed, skipped: another process was sweeping).",
		}, []string{"outcome"}),
		kept: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pads_retention_pending_kept",
			Help: "Pending deliveries by destination at the sweep's last pass: what retention keeps because it is not delivered yet.",
		}, []string{"client", "destination"}),
	}
	m.Registry.MustRegister(r.removed, r.passes, r.kept)
	return r
}

// ObserveRemoved counts n rows of kind removed.
func (r *Retention) ObserveRemoved(kind string, n int) {
	if n > 0 {
		r.removed.WithLabelValues(kind).Add(float64(n))
	}
}

// ObservePass counts one pass by outcome.
func (r *Retention) ObservePass(outcome string) { r.passes.WithLabelValues(outcome).Inc() }

// SetPendingKept replaces the pending deliveries kept, by destination.
func (r *Retention) SetPendingKept(kept map[[2]string]int) {
	r.kept.Reset()
	for ref, n := range kept {
		r.kept.WithLabelValues(ref[0], ref[1]).Set(float64(n))
	}
}

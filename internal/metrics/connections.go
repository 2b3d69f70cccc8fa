package metrics

import "github.com/prometheus/client_golang/prometheus"

// RegisterConnections adds the gauge of open client connections and the
// count of connections closed on arrival because the limit was reached,
// both read at scrape time.
func (m *Metrics) RegisterConnections(open func() int, refused func() uint64) {
	m.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "pads_http_connections_open",
			Help: "Client connections open now.",
		}, func() float64 { return float64(open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "pads_http_connections_refused_total",
			Help: "Client connections closed on arrival because limits.maxConnections were open.",
		}, func() float64 { return float64(refused()) }),
	)
}

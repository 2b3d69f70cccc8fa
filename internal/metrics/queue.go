package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueStats reports the delivery queue. It counts stored deliveries, so
// its cost grows with them; RegisterQueue calls it at most once every
// QueueRefresh, whatever the scrape rate.
type QueueStats func() (pending, failed int, oldestDue time.Duration, err error)

// QueueRefresh is the longest a scrape serves queue gauges read before:
// scrapes between two refreshes cost nothing in the number of stored
// deliveries, and a refresh runs in the background, one at a time.
const QueueRefresh = 5 * time.Second

// RegisterQueue adds the delivery queue gauges, from stats read at most
// once every QueueRefresh. The first scrape waits for the first read; a
// later one serves the last values read and, when they are older than
// QueueRefresh, starts one read in the background.
func (m *Metrics) RegisterQueue(stats QueueStats) {
	m.Registry.MustRegister(&queueCollector{stats: stats, now: time.Now})
}

var (
	pendingDesc = prometheus.NewDesc("pads_deliveries_pending", "Deliveries waiting to be delivered (due or scheduled for a retry).", nil, nil)
	failedDesc  = prometheus.NewDesc("pads_deliveries_failed", "Deliveries that failed every attempt, kept for replay.", nil, nil)
	oldestDesc  = prometheus.NewDesc("pads_delivery_oldest_due_seconds", "How long the oldest due delivery has waited (refreshed every few seconds).", nil, nil)
)

type queueCollector struct {
	stats QueueStats
	now   func() time.Time

	mu         sync.Mutex
	read       bool // values hold a successful read
	at         time.Time
	refreshing bool
	first      chan struct{} // closed when the first read ends
	pending    int
	failed     int
	oldest     time.Duration
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- failedDesc
	ch <- oldestDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	if !c.refreshing && (!c.read || c.now().Sub(c.at) >= QueueRefresh) {
		c.refreshing = true
		if c.first == nil {
			c.first = make(chan struct{})
		}
		go c.refresh()
	}
	first := c.first
	c.mu.Unlock()
	if first != nil {
		<-first
	}
	c.mu.Lock()
	read, pending, failed, oldest := c.read, c.pending, c.failed, c.oldest
	c.mu.Unlock()
	if !read {
		return
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(failedDesc, prometheus.GaugeValue, float64(failed))
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, oldest.Seconds())
}

// refresh reads the stats once. A failed read keeps the values before
// (a first one that fails leaves the gauges out, as before pads cached).
func (c *queueCollector) refresh() {
	pending, failed, oldest, err := c.stats()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshing = false
	c.at = c.now()
	if err == nil {
		c.read, c.pending, c.failed, c.oldest = true, pending, failed, oldest
	}
	if c.first != nil {
		select {
		case <-c.first:
		default:
			close(c.first)
		}
	}
}

package metrics

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestQueueGaugesAreReadAtMostOnceARefresh: however often /metrics is
// scraped, the queue's stats (a count over the stored deliveries) are
// read once per QueueRefresh, so a scrape's cost does not grow with them.
func TestQueueGaugesAreReadAtMostOnceARefresh(t *testing.T) {
	t.Parallel()
	// In a bubble, synctest.Wait returns once the background read a
	// scrape started has ended: no polling for it.
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		var clock atomic.Pointer[time.Time]
		clock.Store(&now)
		var reads atomic.Int32
		m := New()
		c := &queueCollector{now: func() time.Time { return *clock.Load() }, stats: func() (int, int, time.Duration, error) {
			n := int(reads.Add(1))
			return 1000 * n, n, time.Duration(n) * time.Second, nil
		}}
		m.Registry.MustRegister(c)
		scrape := func() string {
			w := httptest.NewRecorder()
			m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
			return w.Body.String()
		}
		if body := scrape(); !strings.Contains(body, "pads_deliveries_pending 1000\n") {
			t.Fatalf("the first scrape must wait for the first read:\n%s", body)
		}
		for range 100 {
			scrape()
		}
		if n := reads.Load(); n != 1 {
			t.Fatalf("%d reads for 101 scrapes within %v, want 1", n, QueueRefresh)
		}
		later := now.Add(QueueRefresh)
		clock.Store(&later)
		if body := scrape(); !strings.Contains(body, "pads_deliveries_pending 1000\n") {
			t.Fatalf("a scrape past the refresh interval must serve the values before, not wait for the read:\n%s", body)
		}
		synctest.Wait() // the read that scrape started has ended
		if n := reads.Load(); n != 2 {
			t.Fatalf("%d reads once a refresh interval has passed, want 2", n)
		}
		for range 100 {
			scrape()
		}
		if n := reads.Load(); n != 2 {
			t.Fatalf("%d reads after one refresh interval, want 2", n)
		}
		if body := scrape(); !strings.Contains(body, "pads_deliveries_pending 2000\n") {
			t.Fatalf("the scrapes after the second read must serve it:\n%s", body)
		}
	})
}

package sqlite_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/metrics"
	"github.com/pads-dev/pads/internal/store/sqlite"
)

// BenchmarkScrapeBesideABacklog measures a scrape of /metrics with 1,000
// and 1,000,000 pending deliveries: "scrape" is what a scraper pays (the
// queue gauges are read at most every metrics.QueueRefresh, in the
// background), "count" is the read itself, which each scrape used to
// pay. Run:
//
//	go test -run '^$' -bench ScrapeBesideABacklog -benchtime 2000x ./internal/store/sqlite
func BenchmarkScrapeBesideABacklog(b *testing.B) {
	ctx := context.Background()
	type backlogged struct {
		pending int
		s       *sqlite.Store
		m       *metrics.Metrics
	}
	var all []*backlogged
	for _, pending := range []int{1_000, 1_000_000} {
		s, db := openRaw(b)
		queueBacklog(b, db, pending, time.Now())
		m := metrics.New()
		m.RegisterQueue(func() (int, int, time.Duration, error) {
			st, err := s.OutboxStats(ctx, time.Now())
			return st.Pending, st.Failed, st.OldestDue, err
		})
		all = append(all, &backlogged{pending: pending, s: s, m: m})
	}
	for range 3 {
		for _, bl := range all {
			b.Run(fmt.Sprintf("pending=%d/scrape", bl.pending), func(b *testing.B) {
				for range b.N {
					w := httptest.NewRecorder()
					bl.m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
					if w.Code != 200 {
						b.Fatalf("scrape: %d", w.Code)
					}
				}
			})
			b.Run(fmt.Sprintf("pending=%d/count", bl.pending), func(b *testing.B) {
				for range b.N {
					if _, err := bl.s.OutboxStats(ctx, time.Now()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

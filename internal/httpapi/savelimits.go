package httpapi

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/pads-dev/pads/internal/config"
)

// saveLimits holds one token bucket per client for its saves
// (clients[].limits). A client's bucket is made on its first save and made
// again only when a reload changes the client's limits, so a reload that
// leaves them alone keeps what the client has spent.
type saveLimits struct {
	buckets sync.Map // client id -> *bucket
}

type bucket struct {
	limits  config.ClientLimits
	limiter *rate.Limiter
}

// take spends one save of the client's bucket at now. When the bucket is
// empty it spends nothing and returns how long until a save would be
// allowed.
func (s *saveLimits) take(c *config.Client, now time.Time) (time.Duration, bool) {
	b := s.bucketOf(c)
	r := b.limiter.ReserveN(now, 1)
	if !r.OK() {
		return time.Second, false // cannot happen: a burst is at least 1
	}
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return wait, false
	}
	return 0, true
}

func (s *saveLimits) bucketOf(c *config.Client) *bucket {
	if v, ok := s.buckets.Load(c.ID); ok {
		if b := v.(*bucket); b.limits == c.Limits {
			return b
		}
	}
	b := &bucket{limits: c.Limits, limiter: rate.NewLimiter(rate.Limit(c.Limits.SavesPerSecond), c.Limits.Burst)}
	for {
		v, loaded := s.buckets.LoadOrStore(c.ID, b)
		if !loaded {
			return b
		}
		old := v.(*bucket)
		if old.limits == c.Limits {
			return old // another request made it first
		}
		if s.buckets.CompareAndSwap(c.ID, old, b) {
			return b
		}
	}
}

// retryAfter is a wait in whole seconds, rounded up, at least 1: what a
// Retry-After header says.
func retryAfter(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

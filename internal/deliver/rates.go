package deliver

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/pads-dev/pads/internal/store"
)

// rates bounds the deliveries to each destination with a maxPerSecond, in
// this process: a token bucket with a burst of 1 per destination. A claim
// skips a destination with no token; what a claim brings beyond its
// tokens is released at once, unleased and untried, and the claimer wakes
// when the next token is due. So a rate-limited destination's deliveries
// wait in the store, holding no lease and no worker, and cost other
// destinations nothing.
type rates struct {
	limit func(ref store.DestinationRef) float64 // 0: unbounded

	mu      sync.Mutex
	buckets map[store.DestinationRef]*rate.Limiter
	// waiting are the limited destinations with deliveries released for
	// want of a token, and when their next token is due.
	waiting map[store.DestinationRef]time.Time
}

func newRates(limit func(ref store.DestinationRef) float64) *rates {
	return &rates{limit: limit, buckets: map[store.DestinationRef]*rate.Limiter{}, waiting: map[store.DestinationRef]time.Time{}}
}

// bucket returns ref's bucket at its limit in force, or nil when it has
// none. The caller holds mu.
func (r *rates) bucket(ref store.DestinationRef) *rate.Limiter {
	perSecond := r.limit(ref)
	if perSecond <= 0 {
		delete(r.buckets, ref)
		return nil
	}
	b, ok := r.buckets[ref]
	if !ok {
		b = rate.NewLimiter(rate.Limit(perSecond), 1)
		r.buckets[ref] = b
	} else if b.Limit() != rate.Limit(perSecond) {
		b.SetLimit(rate.Limit(perSecond))
	}
	return b
}

// take spends a token of ref's bucket at now, and reports whether there
// was one (always, for a destination without a limit). Without one, ref
// is remembered as waiting.
func (r *rates) take(ref store.DestinationRef, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bucket(ref)
	if b == nil || b.AllowN(now, 1) {
		return true
	}
	r.waiting[ref] = now.Add(time.Duration((1 - b.TokensAt(now)) / float64(b.Limit()) * float64(time.Second)))
	return false
}

// skip returns the destinations waiting for a token at now: a claim need
// not bring their deliveries.
func (r *rates) skip(now time.Time) []store.DestinationRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []store.DestinationRef
	for ref, at := range r.waiting {
		if now.Before(at) {
			out = append(out, ref)
		} else {
			delete(r.waiting, ref) // its token is due: claim it again
		}
	}
	return out
}

// next returns when the earliest waiting destination gets a token.
func (r *rates) next() (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first time.Time
	for _, at := range r.waiting {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first, !first.IsZero()
}

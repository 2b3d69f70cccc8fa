package auth

import (
	"sync"
	"time"
)

// Throttle slows down online guessing of API keys: after max failed logins
// for one (username, source address) pair within window, that pair is
// refused until the window that began with its first failure ends.
//
// Keying on the pair, not the username alone, means an attacker from one
// address cannot lock a client out for everyone. Memory is bounded: past
// maxEntries pairs, expired entries are swept and, if that is not enough,
// arbitrary ones dropped.
type Throttle struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*failures
}

type failures struct {
	count int
	start time.Time
}

const maxEntries = 100_000

// NewThrottle returns a throttle allowing max failures per window.
func NewThrottle(max int, window time.Duration, now func() time.Time) *Throttle {
	return &Throttle{max: max, window: window, now: now, entries: map[string]*failures{}}
}

// SetLimits changes max and window, e.g. after a config reload.
func (t *Throttle) SetLimits(max int, window time.Duration) {
	t.mu.Lock()
	t.max, t.window = max, window
	t.mu.Unlock()
}

func pair(username, addr string) string { return username + "\x00" + addr }

// Blocked reports whether the pair must wait, and for how long.
func (t *Throttle) Blocked(username, addr string) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.entries[pair(username, addr)]
	if !ok || f.count < t.max {
		return 0, false
	}
	left := f.start.Add(t.window).Sub(t.now())
	if left <= 0 {
		delete(t.entries, pair(username, addr))
		return 0, false
	}
	return left, true
}

// Fail counts a failed login of the pair.
func (t *Throttle) Fail(username, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	k := pair(username, addr)
	f, ok := t.entries[k]
	if ok && now.Sub(f.start) >= t.window {
		ok = false
	}
	if !ok {
		if len(t.entries) >= maxEntries {
			t.sweep(now)
		}
		f = &failures{start: now}
		t.entries[k] = f
	}
	f.count++
}

// Succeed forgets the pair's failures.
func (t *Throttle) Succeed(username, addr string) {
	t.mu.Lock()
	delete(t.entries, pair(username, addr))
	t.mu.Unlock()
}

func (t *Throttle) sweep(now time.Time) {
	for k, f := range t.entries {
		if now.Sub(f.start) >= t.window {
			delete(t.entries, k)
		}
	}
	for k := range t.entries {
		if len(t.entries) < maxEntries*9/10 {
			break
		}
		delete(t.entries, k)
	}
}

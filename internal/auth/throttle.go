package auth

import (
	"crypto/sha256"
	"net/netip"
	"sync"
	"time"
)

// Throttle slows down online guessing of API keys. It counts failed logins
// in fixed windows that begin with a first failure, three ways:
//
//  1. per (username, address) pair: after max failures the pair is refused
//     until its window ends;
//  2. per username, across addresses: a budget of UserBudget(max) failures;
//     once it is spent, an address that has already failed for that username
//     is refused until the budget's window ends (each address gets one guess
//     instead of max), while an address with no failures is still answered,
//     so the right key keeps working and nobody can lock a client out;
//  3. per address, across usernames: a budget of AddrBudget(max) failures;
//     once it is spent the address is refused for every username until the
//     window ends. This is what a flood of junk usernames from one address
//     meets.
//
// Usernames that exist and usernames that do not are counted alike, so the
// answers never tell which exist. IPv6 addresses are counted by their /64,
// the block one host usually holds.
//
// Memory is bounded: each table holds at most maxEntries entries. When one
// is full, expired entries are dropped, then entries that block nothing; an
// entry that refuses someone is never dropped before its window ends, so no
// amount of other traffic can flush a block. When a table is full of blocks
// a new failure is still counted in the tables that have room.
type Throttle struct {
	now func() time.Time

	mu     sync.Mutex
	max    int
	window time.Duration
	pairs  table
	users  table
	addrs  table
}

// UserBudget is the number of failures for one username, across all
// addresses, that a window allows before each address gets one guess.
func UserBudget(max int) int { return 10 * max }

// AddrBudget is the number of failures from one address, across all
// usernames, that a window allows before the address is refused.
func AddrBudget(max int) int { return 10 * max }

// maxEntries bounds each of the throttle's three tables.
const maxEntries = 100_000

type key [16]byte

type failures struct {
	count int
	start time.Time
	user  key // a pair's username, to tell whether its budget is spent
}

// table is one of the throttle's counters, with the time after which a
// full table may be swept again (a sweep that freed little is not repeated
// at every failure).
type table struct {
	m         map[key]*failures
	nextSweep time.Time
}

// NewThrottle returns a throttle allowing max failures per pair and window.
func NewThrottle(max int, window time.Duration, now func() time.Time) *Throttle {
	t := &Throttle{max: max, window: window, now: now}
	t.pairs.m, t.users.m, t.addrs.m = map[key]*failures{}, map[key]*failures{}, map[key]*failures{}
	return t
}

// SetLimits changes max and window, e.g. after a config reload.
func (t *Throttle) SetLimits(max int, window time.Duration) {
	t.mu.Lock()
	t.max, t.window = max, window
	t.mu.Unlock()
}

// Blocked reports whether a login of username from addr must wait, and for
// how long. It is asked before the key is checked, so a refused caller
// learns nothing about the key.
func (t *Throttle) Blocked(username, addr string) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	u, a, p := userKey(username), addrKey(addr), pairKey(username, addr)
	var wait time.Duration
	if left := t.left(t.addrs.m[a], AddrBudget(t.max), now); left > wait {
		wait = left
	}
	if left := t.left(t.pairs.m[p], t.max, now); left > wait {
		wait = left
	}
	if t.live(t.pairs.m[p], now) {
		if left := t.left(t.users.m[u], UserBudget(t.max), now); left > wait {
			wait = left
		}
	}
	return wait, wait > 0
}

// Fail counts a failed login of username from addr.
func (t *Throttle) Fail(username, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	u := userKey(username)
	t.count(&t.addrs, addrKey(addr), u, AddrBudget(t.max), now)
	t.count(&t.users, u, u, UserBudget(t.max), now)
	t.count(&t.pairs, pairKey(username, addr), u, t.max, now)
}

// Succeed forgets the pair's failures. The username's and the address's
// budgets stay spent: a right key for one client must not buy guesses at
// another's.
func (t *Throttle) Succeed(username, addr string) {
	t.mu.Lock()
	delete(t.pairs.m, pairKey(username, addr))
	t.mu.Unlock()
}

// Entries reports how many entries the throttle holds, for tests and
// metrics.
func (t *Throttle) Entries() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pairs.m) + len(t.users.m) + len(t.addrs.m)
}

// live reports whether f counts failures in its window at now.
func (t *Throttle) live(f *failures, now time.Time) bool {
	return f != nil && now.Sub(f.start) < t.window
}

// left is how long f refuses callers at limit, or 0.
func (t *Throttle) left(f *failures, limit int, now time.Time) time.Duration {
	if !t.live(f, now) || f.count < limit {
		return 0
	}
	return f.start.Add(t.window).Sub(now)
}

func (t *Throttle) count(tb *table, k key, user key, limit int, now time.Time) {
	f := tb.m[k]
	if !t.live(f, now) {
		if f == nil && len(tb.m) >= maxEntries && !t.sweep(tb, limit, now) {
			return
		}
		f = &failures{start: now, user: user}
		tb.m[k] = f
	}
	f.count++
}

// sweep makes room in a full table: it drops expired entries, then entries
// that refuse nobody, and reports whether there is room. A sweep that
// freed too little is not repeated before a sixteenth of the window has
// passed, so a table full of blocks costs no scan per failure.
func (t *Throttle) sweep(tb *table, limit int, now time.Time) bool {
	if now.Before(tb.nextSweep) {
		return false
	}
	for k, f := range tb.m {
		if !t.live(f, now) {
			delete(tb.m, k)
		}
	}
	for k, f := range tb.m {
		if len(tb.m) < maxEntries*9/10 {
			break
		}
		if !t.refuses(tb, f, limit, now) {
			delete(tb.m, k)
		}
	}
	if len(tb.m) >= maxEntries {
		tb.nextSweep = now.Add(t.window / 16)
		return false
	}
	return true
}

// refuses reports whether entry f of table tb refuses anyone now: it has
// reached its limit, or it is a pair with failures whose username's budget
// is spent.
func (t *Throttle) refuses(tb *table, f *failures, limit int, now time.Time) bool {
	if t.left(f, limit, now) > 0 {
		return true
	}
	return tb == &t.pairs && t.left(t.users.m[f.user], UserBudget(t.max), now) > 0
}

func userKey(username string) key { return digest("u", username) }

func pairKey(username, addr string) key {
	return digest("p", username+"\x00"+string(addrKeyBytes(addr)))
}

func addrKey(addr string) key { return digest("a", string(addrKeyBytes(addr))) }

// addrKeyBytes is the part of an address the throttle counts: an IPv4
// address whole, an IPv6 address by its /64.
func addrKeyBytes(addr string) []byte {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return []byte(addr)
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	b, _ := a.MarshalBinary()
	return b
}

// digest keeps keys small whatever a caller sends as a username.
func digest(kind, s string) key {
	sum := sha256.Sum256([]byte(kind + "\x00" + s))
	var k key
	copy(k[:], sum[:])
	return k
}

package httpapi

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Listener bounds the connections open at once, in all and per source
// address (an IPv6 address counted by its /64): one host cannot take every
// place. A connection accepted past a bound is closed at once (a reset, so
// its client knows without waiting) and Accept goes on: accepting never
// blocks on the bound, so no connection waits unseen in the kernel's
// queue, where no timeout reaches it. The bounds may change while serving
// (a config reload).
type Listener struct {
	net.Listener
	max     atomic.Int64
	perAddr atomic.Int64
	// exempt reports addresses with no bound of their own (trusted
	// proxies: every connection through a balancer comes from it).
	exempt  atomic.Pointer[func(netip.Addr) bool]
	open    atomic.Int64
	refused atomic.Uint64

	mu     sync.Mutex
	byAddr map[netip.Addr]int
}

// NewListener bounds ln to max open connections, and perAddr from one
// address.
func NewListener(ln net.Listener, max, perAddr int) *Listener {
	l := &Listener{Listener: ln, byAddr: map[netip.Addr]int{}}
	l.max.Store(int64(max))
	l.perAddr.Store(int64(perAddr))
	return l
}

// SetMax changes the bounds; connections open past a lowered bound are not
// closed, but no new one is accepted until they are fewer.
func (l *Listener) SetMax(max, perAddr int) {
	l.max.Store(int64(max))
	l.perAddr.Store(int64(perAddr))
}

// SetExempt sets the addresses with no bound of their own.
func (l *Listener) SetExempt(exempt func(netip.Addr) bool) { l.exempt.Store(&exempt) }

// Open is the number of connections open now.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed on arrival since the start.
func (l *Listener) Refused() uint64 { return l.refused.Load() }

// Accept returns the next connection within the bound.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max.Load() {
			addr, ok := l.take(c.RemoteAddr())
			if ok {
				return &countedConn{Conn: c, l: l, addr: addr}, nil
			}
		}
		l.open.Add(-1)
		l.refused.Add(1)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset: nothing lingers in TIME_WAIT
		}
		c.Close()
	}
}

// take counts a connection from remote against its address's bound; it
// returns the address counted (the zero Addr when none is).
func (l *Listener) take(remote net.Addr) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(remote.String())
	if err != nil {
		return netip.Addr{}, true
	}
	a := ap.Addr().Unmap()
	if ex := l.exempt.Load(); ex != nil && (*ex)(a) {
		return netip.Addr{}, true
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if int64(l.byAddr[a]) >= l.perAddr.Load() {
		return netip.Addr{}, false
	}
	l.byAddr[a]++
	return a, true
}

func (l *Listener) give(a netip.Addr) {
	if !a.IsValid() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byAddr[a]--; l.byAddr[a] <= 0 {
		delete(l.byAddr, a)
	}
}

// countedConn gives its places back once, when it closes.
type countedConn struct {
	net.Conn
	l    *Listener
	addr netip.Addr // counted against its address's bound, if valid
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.open.Add(-1)
		c.l.give(c.addr)
	})
	return c.Conn.Close()
}

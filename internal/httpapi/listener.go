package httpapi

import (
	"net"
	"sync"
	"sync/atomic"
)

// Listener bounds the connections open at once. A connection accepted past
// the bound is closed at once (a reset, so its client knows without
// waiting) and Accept goes on: accepting never blocks on the bound, so no
// connection waits unseen in the kernel's queue, where no timeout reaches
// it. The bound may change while serving (a config reload).
type Listener struct {
	net.Listener
	max     atomic.Int64
	open    atomic.Int64
	refused atomic.Uint64
}

// NewListener bounds ln to max open connections.
func NewListener(ln net.Listener, max int) *Listener {
	l := &Listener{Listener: ln}
	l.max.Store(int64(max))
	return l
}

// SetMax changes the bound; connections open past a lowered bound are not
// closed, but no new one is accepted until they are fewer.
func (l *Listener) SetMax(max int) { l.max.Store(int64(max)) }

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
			return &countedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset: nothing lingers in TIME_WAIT
		}
		c.Close()
	}
}

// countedConn gives its place back once, when it closes.
type countedConn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

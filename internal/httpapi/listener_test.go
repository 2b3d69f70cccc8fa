package httpapi_test

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/httpapi"
)

// TestListenerBoundsConnectionsPerAddress tells clients apart by their
// 127.0.0.x source addresses: one address gets at most its bound, another
// address still gets in, and an exempt one (a trusted proxy) has no bound
// of its own.
func TestListenerBoundsConnectionsPerAddress(t *testing.T) {
	t.Parallel()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := httpapi.NewListener(tcp, 100, 3)
	l.SetExempt(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.4") })
	defer l.Close()
	accepted := make(chan net.Conn, 100)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func(src string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		c, err := d.Dial("tcp", tcp.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	expect := func(n int, what string) []net.Conn {
		t.Helper()
		var got []net.Conn
		for range n {
			select {
			case c := <-accepted:
				got = append(got, c)
			case <-time.After(time.Minute):
				t.Fatalf("%s: %d of %d accepted", what, len(got), n)
			}
		}
		return got
	}
	for range 3 {
		dial("127.0.0.2")
	}
	first := expect(3, "127.0.0.2 within its bound")
	// Past its bound a connection is reset at once, sometimes before the
	// dial returns. The listener counts a refusal before it resets, so
	// once the client has seen the reset the count holds it.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	if c, err := d.Dial("tcp", tcp.Addr().String()); err == nil {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a connection past its address's bound was not reset: %v", err)
		}
		c.Close()
	}
	if n := l.Refused(); n != 1 {
		t.Fatalf("refused %d, want 1", n)
	}
	dial("127.0.0.3")
	expect(1, "another address")
	for range 5 {
		dial("127.0.0.4")
	}
	expect(5, "an exempt address")
	first[0].Close()
	dial("127.0.0.2")
	expect(1, "127.0.0.2 after one of its connections closed")
	if l.Refused() != 1 || l.Open() != 3+1+5 {
		t.Fatalf("refused %d, open %d", l.Refused(), l.Open())
	}
}

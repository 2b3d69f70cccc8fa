package main

import (
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOneHostCannotTakeEveryConnection: silent connections from one
// address (127.0.0.2) fill its own bound, not pads' whole
// limits.maxConnections, so another address (127.0.0.3) is still served.
func TestOneHostCannotTakeEveryConnection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := strings.Replace(testConfig(filepath.Join(dir, "data")), "limits:\n",
		"limits:\n  maxConnections: 16\n  maxConnectionsPerAddress: 4\n", 1)
	s := startServerAt(t, writeConfig(t, dir, cfg))
	addr := strings.TrimPrefix(s.base, "http://")
	hostile := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	for range 16 {
		// Past its bound a connection is reset at once, sometimes
		// before the dial returns.
		if c, err := hostile.Dial("tcp", addr); err == nil {
			defer c.Close()
		}
	}
	other := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: other.DialContext}}
	resp, err := client.Get(s.base + "/healthz")
	if err != nil {
		t.Fatalf("another host is refused while one holds 16 silent connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
}

package httpapi

import (
	"net/http/httptest"
	"testing"

	"github.com/pads-dev/pads/internal/config"
)

func TestClientAddrBelievesOnlyTrustedProxies(t *testing.T) {
	t.Parallel()
	const clients = `
clients:
  - id: acme
    apiKeys: [{key: "0123456789abcdef"}]
    funnels: [{id: acme-main}]
`
	trusting, err := config.Parse([]byte("trustedProxies: [10.0.0.0/8, \"2001:db8:1::/48\"]\n"+clients), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := config.Parse([]byte(clients), func(string) string { return "" })
	tests := []struct {
		name string
		cfg  *config.Config
		peer string
		xff  []string
		want string
	}{
		{"no proxies: the peer", plain, "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"an untrusted peer's header is ignored", trusting, "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"a trusted proxy: the address it got the request from", trusting, "10.0.0.2:5000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"a client cannot prepend its way out", trusting, "10.0.0.2:5000", []string{"192.0.2.66, 198.51.100.1"}, "198.51.100.1"},
		{"through two trusted proxies", trusting, "10.0.0.2:5000", []string{"198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"several header lines read as one list", trusting, "10.0.0.2:5000", []string{"192.0.2.66", "198.51.100.1, 10.1.1.1"}, "198.51.100.1"},
		{"every hop trusted: the left-most", trusting, "10.0.0.2:5000", []string{"10.3.3.3, 10.1.1.1"}, "10.3.3.3"},
		{"no header: the proxy", trusting, "10.0.0.2:5000", nil, "10.0.0.2"},
		{"garbage stops at the last proxy read", trusting, "10.0.0.2:5000", []string{"198.51.100.1, unknown, 10.1.1.1"}, "10.1.1.1"},
		{"entries with ports", trusting, "10.0.0.2:5000", []string{"198.51.100.1:4711"}, "198.51.100.1"},
		{"IPv6", trusting, "[2001:db8:1::5]:443", []string{"2001:db8:2::7"}, "2001:db8:2::7"},
		{"IPv4-mapped peer", trusting, "[::ffff:10.0.0.2]:443", []string{"198.51.100.1"}, "198.51.100.1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.peer
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := clientAddr(r, tt.cfg); got != tt.want {
			t.Errorf("%s: clientAddr = %s, want %s", tt.name, got, tt.want)
		}
	}
}

package httpapi

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/pads-dev/pads/internal/config"
)

// clientAddr is the address pads believes a request comes from, for the
// login throttle and the request log. It is the TCP peer, unless the peer
// is one of the config's trustedProxies: then X-Forwarded-For is read from
// the right (each proxy appends the address it got the request from), and
// the first address that is not a trusted proxy is the client's. What
// lies left of it was written by the client itself and is ignored. An
// entry that is not an address ends the walk at the last proxy read; when
// every entry is a trusted proxy, the left-most one is the client.
func clientAddr(r *http.Request, cfg *config.Config) string {
	peer, ok := parseHost(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !cfg.TrustedProxy(peer) {
		return peer.String()
	}
	believed := peer
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHost(strings.TrimSpace(hops[i]))
		if !ok {
			break
		}
		believed = a
		if !cfg.TrustedProxy(a) {
			break
		}
	}
	return believed.String()
}

// parseHost reads an address with or without a port ("192.0.2.1",
// "192.0.2.1:5000", "[2001:db8::1]:443", "2001:db8::1").
func parseHost(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// Package egress is how pads reaches out to clients' systems: HTTP clients
// whose dialer refuses non-public addresses (SSRF), which never follow
// redirects and never use a proxy, and the classes that name why an
// outbound call failed without repeating its error text.
package egress

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

// ErrBlocked is returned by the dialer for an address the SSRF guard
// refuses.
var ErrBlocked = errors.New("destination address is not public")

// blockedPrefixes are ranges no public webhook lives in, beyond what
// netip.Addr's predicates cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),         // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),     // CGNAT shared address space
	netip.MustParsePrefix("192.0.0.0/24"),      // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),     // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),       // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),      // NAT64: could map onto a private IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use NAT64
	netip.MustParsePrefix("2002::/16"),         // 6to4: embeds any IPv4
	netip.MustParsePrefix("fd00:ec2::254/128"), // AWS metadata over IPv6 (also in fc00::/7)
}

// Public reports whether addr may be a webhook destination: not loopback,
// private, link-local (which holds the 169.254.169.254 cloud metadata
// address), CGNAT, multicast, unspecified or otherwise reserved.
func Public(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() ||
		addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// Guard is a net.Dialer Control function: it runs after name resolution,
// on the very address about to be connected, so a name that resolves to a
// private address (or changes to one later) is refused too.
func Guard(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return ErrBlocked
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !Public(addr) {
		return ErrBlocked
	}
	return nil
}

package egress_test

import (
	"net/netip"
	"testing"

	"github.com/pads-dev/pads/internal/deliver/egress"
)

func TestPublicAddresses(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "8.8.8.8": true, "2606:4700:4700::1111": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "100.64.0.1": false, "0.0.0.0": false, "::": false,
		"224.0.0.1": false, "ff02::1": false, "255.255.255.255": false, "fc00::1": false, "fd00:ec2::254": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "198.18.0.1": false, "192.0.0.8": false,
	} {
		if got := egress.Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHangingTokenEndpointsDoNotWedgeOtherClients: eight destinations of
// acme whose OAuth2 token endpoint hangs, with 32 deliveries each (as many
// as pads has workers), do not stop globex's delivery. (Token fetches
// used to ignore the attempt's deadline and queue behind one another: the
// attempts held every worker, and globex's delivery never started.)
func TestHangingTokenEndpointsDoNotWedgeOtherClients(t *testing.T) {
	if testing.Short() {
		t.Skip("256 deliveries end to end")
	}
	t.Parallel()
	release := make(chan struct{})
	var fetches atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(tokens.Close)
	healthy := newReceiver(t, nil)
	var bad strings.Builder
	for i := range 8 {
		fmt.Fprintf(&bad, "      - id: bad%d\n        type: webhook\n        url: %s/never\n        timeout: 2s\n"+
			"        retry: {attempts: 20, initialDelay: 1s, multiplier: 1}\n"+
			"        auth: {oauth2: {tokenURL: %s, clientID: pads, clientSecret: s}}\n", i, healthy.srv.URL, tokens.URL)
	}
	path := deliveryConfig(t, bad.String(), webhookDest(healthy.srv.URL, ""))
	s := startServerAt(t, path)
	t.Cleanup(func() { close(release) }) // runs before pads' own cleanup: its shutdown waits for attempts
	acme := s.token("acme", acmeKey, "storage")
	for i := range 32 {
		completeForm(t, s, acme, "acme-main", fmt.Sprintf("p%d@example.com", i))
	}
	// The acme deliveries take the workers they get: each of the eight
	// destinations' token fetches hangs, with attempts queued behind it.
	if !waitWithin(busyWait, func() bool { return fetches.Load() >= 8 }) {
		t.Fatalf("%d of the 8 destinations fetched a token", fetches.Load())
	}
	globex := s.token("globex", globexKey, "storage")
	completeForm(t, s, globex, "globex-main", "g@example.com")
	healthy.waitReceived(t, 1, 30*time.Second)
	if n := len(healthy.all()); n != 1 {
		t.Fatalf("the healthy receiver got %d requests; acme's deliveries must never go out without a token", n)
	}
}

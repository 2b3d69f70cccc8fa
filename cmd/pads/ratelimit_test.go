package main

import (
	"fmt"
	"testing"
	"time"
)

// TestMaxPerSecondSpacesOneDestinationsDeliveriesOnly, on both stores,
// through the real server: three deliveries to a destination with
// maxPerSecond 2 (a bucket of burst 1) span at least the two half-second
// gaps the rate allows, while a destination of the same client without a
// rate has all three before the limited one has its last. Only lower
// bounds on time: a loaded machine can slow deliveries, never hasten them.
// (The rate's arithmetic is internal/deliver's, on a fake clock; this
// test holds the config to it.)
func TestMaxPerSecondSpacesOneDestinationsDeliveriesOnly(t *testing.T) {
	onStores(t, func(t *testing.T, useStore func(string)) {
		limited, free := newReceiver(t, nil), newReceiver(t, nil)
		path := deliveryConfig(t, "      - id: limited\n        type: webhook\n        url: "+limited.srv.URL+"\n        maxPerSecond: 2\n"+
			"      - id: free\n        type: webhook\n        url: "+free.srv.URL+"\n", "")
		useStore(path)
		s := startServerAt(t, path)
		tok := s.token("acme", acmeKey, "storage")
		const n = 3
		for i := range n {
			completeForm(t, s, tok, "acme-main", fmt.Sprintf("rate%d@example.com", i))
		}
		got := limited.wait(t, n, 30*time.Second)
		freeGot := free.wait(t, n, 10*time.Second)
		// The bucket lets one through at once and one every 500 ms after;
		// 100 ms of slack for the first request's own delay in transit.
		want := time.Duration(n-1) * 500 * time.Millisecond
		if span := got[n-1].at.Sub(got[0].at); span < want-100*time.Millisecond {
			t.Errorf("%d deliveries at maxPerSecond 2 spanned %v, want at least %v", n, span, want)
		}
		if last, limitedLast := freeGot[n-1].at, got[n-1].at; !last.Before(limitedLast) {
			t.Errorf("the destination without a rate had its last delivery at %v, after the limited one's last at %v: the rate held it up", last, limitedLast)
		}
	})
}

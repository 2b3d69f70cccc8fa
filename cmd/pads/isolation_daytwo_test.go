package main

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestMeasureAPausedAndARateLimitedDestinationCostOthersNothing measures,
// through the real program on SQLite, the save-to-arrival latency of 200
// deliveries to a healthy destination: alone, beside a paused destination
// with 2,000 deliveries waiting, and beside a destination at
// maxPerSecond: 1 with 2,000 waiting. It logs p50/p99 of each; run with
// PADS_MEASURE=1 (a measurement, not a pass/fail bound: timings belong to
// measurements, and a busy machine moves them).
func TestMeasureAPausedAndARateLimitedDestinationCostOthersNothing(t *testing.T) {
	if os.Getenv("PADS_MEASURE") == "" {
		t.Skip("a measurement: PADS_MEASURE=1")
	}
	for _, round := range []string{"alone", "paused", "limited", "alone", "paused", "limited"} {
		p50, p99 := measureBeside(t, round)
		t.Logf("%-8s healthy destination's save-to-arrival p50 %6.1f ms  p99 %6.1f ms", round, ms(p50), ms(p99))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func measureBeside(t *testing.T, other string) (p50, p99 time.Duration) {
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	healthy := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived[r.Header.Get("webhook-id")] = time.Now()
		mu.Unlock()
	})
	slow := newReceiver(t, nil)
	extra := ""
	switch other {
	case "limited":
		extra = "        maxPerSecond: 1\n"
	}
	path := deliveryConfig(t, "      - id: healthy\n        type: webhook\n        url: "+healthy.srv.URL+"\n        events: [non-sensitive]\n",
		"      - id: other\n        type: webhook\n        url: "+slow.srv.URL+"\n"+extra)
	if other == "paused" {
		cli(t, "destinations", "pause", "globex/other", "--config", path)
	}
	s := startServerAt(t, path)
	if other != "alone" {
		g := s.token("globex", globexKey, "storage")
		for i := range 2000 {
			completeForm(t, s, g, "globex-main", fmt.Sprintf("g%d@example.com", i))
		}
	}
	tok := s.token("acme", acmeKey, "storage")
	sent := map[string]time.Time{}
	var order []string
	for i := range 200 {
		at := time.Now()
		uuid := completeForm(t, s, tok, "acme-main", fmt.Sprintf("a%d@example.com", i))
		sent[uuid] = at
		order = append(order, uuid)
		// The measurement's pace (200 saves a second at most), not a wait
		// for pads; the test runs only with PADS_MEASURE=1.
		time.Sleep(5 * time.Millisecond)
	}
	healthy.wait(t, 200, 60*time.Second)
	// webhook-id -> uuid through the bodies
	var lat []time.Duration
	for _, r := range healthy.all() {
		var uuid string
		fmt.Sscanf(string(r.body[indexOf(r.body, `"uuid":"`)+8:]), "%36s", &uuid)
		if at, ok := sent[uuid]; ok {
			lat = append(lat, r.at.Sub(at))
		}
	}
	slices.Sort(lat)
	s.stop()
	if len(lat) == 0 {
		t.Fatal("no latency measured")
	}
	return lat[len(lat)/2], lat[len(lat)*99/100]
}

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return 0
}

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a webhook endpoint on 127.0.0.1. respond decides the answer
// to the n-th request (0-based); nil answers 200.
type receiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	reqs     []received
	respond  func(n int, w http.ResponseWriter, r *http.Request)
	answered atomic.Int64  // requests fully answered
	arrived  chan struct{} // a wake-up per answer, for wait
}

func newReceiver(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{respond: respond, arrived: make(chan struct{}, 1)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.reqs)
		rc.reqs = append(rc.reqs, received{header: r.Header.Clone(), body: body, at: time.Now()})
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(n, w, r)
		} else {
			w.Write([]byte(`{"status":"ok"}`))
		}
		rc.answered.Add(1)
		select {
		case rc.arrived <- struct{}{}:
		default: // nobody waiting; wait re-reads the count anyway
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// wait returns once the receiver has answered n requests in all.
func (rc *receiver) wait(t *testing.T, n int, within time.Duration) []received {
	t.Helper()
	deadline := time.After(max(within, busyWait))
	for {
		if rc.answered.Load() >= int64(n) {
			return rc.all()
		}
		select {
		case <-rc.arrived:
		case <-time.After(50 * time.Millisecond): // an answer may have come between Load and select
		case <-deadline:
			t.Fatalf("receiver answered %d requests, want %d", rc.answered.Load(), n)
		}
	}
}

// waitReceived returns once n requests have arrived, answered or not (for
// receivers that hang).
func (rc *receiver) waitReceived(t *testing.T, n int, within time.Duration) {
	t.Helper()
	if !waitWithin(max(within, busyWait), func() bool { return len(rc.all()) >= n }) {
		t.Fatalf("receiver got %d requests, want %d", len(rc.all()), n)
	}
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

const (
	whsec1 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	whsec2 = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
)

// deliveryConfig is testConfig with private and plain-HTTP destinations
// allowed (the receivers are on 127.0.0.1) and YAML destinations for acme
// and globex.
func deliveryConfig(t *testing.T, acme, globex string) string {
	t.Helper()
	dir := t.TempDir()
	text := fmt.Sprintf(`serviceName: pads
listen: 127.0.0.1:0
dataDir: %s
destinations:
  allowPrivateNetworks: true
  allowPlainHTTP: true
clients:
  - id: acme
    apiKeys: [{key: %s}]
    subscription: full
    funnels:
      - id: acme-main
      - id: acme-staging
        environment: staging
    destinations:
%s
  - id: globex
    apiKeys: [{key: %s}]
    subscription: non-sensitive
    funnels: [{id: globex-main}]
    destinations:
%s
`, filepath.Join(dir, "data"), acmeKey, indent(acme), globexKey, indent(globex))
	path := filepath.Join(dir, "pads.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func indent(s string) string {
	if s == "" {
		return "      []"
	}
	return s
}

// webhookDest is one destination entry, indented for deliveryConfig.
func webhookDest(url string, extra string) string {
	return fmt.Sprintf("      - type: webhook\n        url: %s\n%s", url, extra)
}

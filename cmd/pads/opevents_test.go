package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/deliver/notify"
)

// operatorReceiver is an operator endpoint: it verifies each event's
// signature and keeps the events.
type operatorReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []notify.Event
	bad    []string
}

func newOperatorReceiver(t *testing.T) *operatorReceiver {
	t.Helper()
	o := &operatorReceiver{}
	wh, _ := standardwebhooks.NewWebhook(whsec1)
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var e notify.Event
		err := wh.Verify(body, r.Header)
		if err == nil {
			err = json.Unmarshal(body, &e)
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if err != nil || r.Header.Get("X-Pads-Event") != "operator" {
			o.bad = append(o.bad, r.Header.Get("X-Pads-Event")+" "+string(body))
			w.WriteHeader(400)
			return
		}
		o.events = append(o.events, e)
		w.WriteHeader(204)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// waitFor returns the first event of the type, waiting up to busyWait.
func (o *operatorReceiver) waitFor(t *testing.T, typ string) notify.Event {
	t.Helper()
	var found notify.Event
	var ok bool
	var bad []string
	waitWithin(busyWait, func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		for _, e := range o.events {
			if e.Type == typ {
				found, ok = e, true
				return true
			}
		}
		bad = append(bad[:0], o.bad...)
		return len(bad) > 0
	})
	if ok {
		return found
	}
	if len(bad) > 0 {
		t.Fatalf("the operator endpoint refused %v", bad)
	}
	t.Fatalf("no %s event in %v (got %v)", typ, busyWait, o.types())
	return notify.Event{}
}

func (o *operatorReceiver) types() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, e := range o.events {
		out = append(out, e.Type)
	}
	return out
}

// withOperatorEvents adds an operator endpoint (signed with whsec1) and
// extra top-level destinations settings to the config at path.
func withOperatorEvents(t *testing.T, path, url, failingAfter string) {
	t.Helper()
	text := readFile(t, path)
	text = strings.Replace(text, "  allowPlainHTTP: true\n", "  allowPlainHTTP: true\n"+failingAfter, 1)
	text = strings.Replace(text, "clients:", "operatorEvents:\n  - {id: oncall, url: \""+url+"\", hmac: {secret: "+whsec1+"}}\nclients:", 1)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOperatorEventsTellFailingFailedRecoveredPausedAndResumed drives a
// destination through an outage and tells an operator endpoint each
// step, signed, with ids and counts and no patient data.
func TestOperatorEventsTellFailingFailedRecoveredPausedAndResumed(t *testing.T) {
	var mu sync.Mutex
	down := true
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			w.WriteHeader(503)
		}
	})
	ops := newOperatorReceiver(t)
	path := deliveryConfig(t, "      - id: clinic\n        type: webhook\n        url: "+rc.srv.URL+"\n        retry: {attempts: 2, initialDelay: 100ms}\n", "")
	withOperatorEvents(t, path, ops.srv.URL, "  failingAfter: 2\n")
	s := startServerAt(t, path)
	tok := s.token("acme", acmeKey, "storage")
	uuid := completeForm(t, s, tok, "acme-main", "ada@example.com")

	failing := ops.waitFor(t, "destination.failing")
	if failing.Data.Client != "acme" || failing.Data.Destination != "clinic" || failing.Data.ConsecutiveFailures != 2 || failing.Data.StatusCode != 503 {
		t.Fatalf("destination.failing %+v", failing)
	}
	failed := ops.waitFor(t, "delivery.failed")
	if failed.Data.DeliveryID != 1 || !strings.HasPrefix(failed.Data.MessageID, "msg_") || failed.Data.FailedForGood != 1 || failed.Data.DataType != "non-sensitive" {
		t.Fatalf("delivery.failed %+v", failed)
	}
	// A second delivery failed for good within the hour is not told again.
	completeForm(t, s, tok, "acme-main", "grace@example.com")
	waitFor(t, func() bool {
		return strings.Count(cli(t, "deliveries", "list", "--status", "failed", "--config", path), "http_5xx") == 2
	})
	mu.Lock()
	down = false
	mu.Unlock()
	cli(t, "deliveries", "replay", "1", "--config", path)
	recovered := ops.waitFor(t, "destination.recovered")
	if recovered.Data.Destination != "clinic" || recovered.Data.ConsecutiveFailures < 4 {
		t.Fatalf("destination.recovered %+v", recovered)
	}
	cli(t, "destinations", "pause", "acme/clinic", "--reason", "clinic move", "--config", path)
	if p := ops.waitFor(t, "destination.paused"); p.Data.Reason != "clinic move" || !strings.HasPrefix(p.Data.By, "cli:") {
		t.Fatalf("destination.paused %+v", p)
	}
	cli(t, "destinations", "resume", "acme/clinic", "--config", path)
	ops.waitFor(t, "destination.resumed")
	n := 0
	for _, typ := range ops.types() {
		if typ == "delivery.failed" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d delivery.failed events within the hour, want 1", n)
	}
	ops.mu.Lock()
	defer ops.mu.Unlock()
	for _, e := range ops.events {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), uuid) || strings.Contains(string(b), "ada@") || strings.Contains(string(b), "Ada") {
			t.Fatalf("an operator event carries patient data: %s", b)
		}
	}
}

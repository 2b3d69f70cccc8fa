package notify_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/notify"
	"github.com/pads-dev/pads/internal/deliver/webhook"
)

const whsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestNotifierSendsSignedOperatorEventsToEveryEndpoint(t *testing.T) {
	t.Parallel()
	type got struct {
		endpoint string
		header   http.Header
		event    notify.Event
	}
	received := make(chan got, 10)
	wh, _ := standardwebhooks.NewWebhook(whsec)
	handler := func(name string, status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if err := wh.Verify(body, r.Header); err != nil {
				t.Errorf("%s: signature: %v", name, err)
			}
			var e notify.Event
			if err := json.Unmarshal(body, &e); err != nil {
				t.Errorf("%s: body %s: %v", name, body, err)
			}
			received <- got{name, r.Header.Clone(), e}
			w.WriteHeader(status)
		}
	}
	flaky := 0
	a := httptest.NewServer(handler("a", 204))
	defer a.Close()
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flaky++
		status := 204
		if flaky == 1 {
			status = 503 // tried again
		}
		handler("b", status)(w, r)
	}))
	defer b.Close()
	yaml := "destinations: {allowPrivateNetworks: true, allowPlainHTTP: true}\noperatorEvents:\n" +
		"  - {id: a, url: \"" + a.URL + "\", hmac: {secret: " + whsec + "}}\n" +
		"  - {id: b, url: \"" + b.URL + "\", hmac: {secret: " + whsec + "}}\n" +
		"clients:\n  - id: acme\n    apiKeys: [{key: \"0123456789abcdef\"}]\n    funnels: [{id: acme-main}]\n"
	cfg, err := config.Parse([]byte(yaml), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	n := notify.New(webhook.NewSender("pads", "test"), func() []deliver.Destination { return deliver.OperatorEndpoints(cfg) }, slog.New(slog.DiscardHandler))
	n.SetBackoff(func(int) time.Duration { return time.Millisecond })
	defer n.Stop()
	n.Publish(notify.Event{Type: notify.DestinationPaused, Timestamp: time.Now(), Data: notify.Data{Client: "acme", Destination: "hook", Reason: "maintenance", By: "cli:ops"}})
	seen := map[string]int{}
	for range 3 { // a once, b twice (a 503, then a 204)
		select {
		case g := <-received:
			seen[g.endpoint]++
			if g.header.Get("X-Pads-Event") != "operator" || g.header.Get("X-Pads-Model") != "" || !strings.HasPrefix(g.header.Get("webhook-id"), "msg_") {
				t.Errorf("%s: headers %v", g.endpoint, g.header)
			}
			if g.event.Type != notify.DestinationPaused || g.event.Data.Destination != "hook" || g.event.Data.Reason != "maintenance" {
				t.Errorf("%s: event %+v", g.endpoint, g.event)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("received %v", seen)
		}
	}
	if seen["a"] != 1 || seen["b"] != 2 {
		t.Fatalf("received %v, want a once and b twice", seen)
	}
}

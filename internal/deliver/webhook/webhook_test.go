package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/egress"
	"github.com/pads-dev/pads/internal/deliver/webhook"
	"github.com/pads-dev/pads/internal/store"
)

const (
	secret1 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secret2 = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
)

func key(t *testing.T, s string) []byte {
	t.Helper()
	k, err := config.WebhookSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignatureVerifiesWithTheStandardWebhooksLibrary(t *testing.T) {
	t.Parallel()
	body := []byte(`{"uuid":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f","email":"ada@example.com"}`)
	ts := time.Now()
	sig := webhook.Sign([][]byte{key(t, secret1), key(t, secret2)}, "msg_1", ts, body)
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	for _, s := range []string{secret1, secret2} {
		wh, _ := standardwebhooks.NewWebhook(s)
		if err := wh.Verify(body, h); err != nil {
			t.Errorf("verify with %s: %v (header %q)", s[:10], err, sig)
		}
	}
	wh, _ := standardwebhooks.NewWebhook("whsec_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	if wh.Verify(body, h) == nil {
		t.Error("another secret must not verify")
	}
	tampered := append([]byte{}, body...)
	tampered[3] = 'X'
	wh, _ = standardwebhooks.NewWebhook(secret1)
	if wh.Verify(tampered, h) == nil {
		t.Error("a changed body must not verify")
	}
}

// policy is the config's destinations section: what a test relaxes.
type policy struct{ private, plain bool }

func send(s *webhook.Sender, p policy, url string) deliver.Result {
	d := &deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "hook"}, Type: "webhook", URL: url, Timeout: 2 * time.Second,
		AllowPrivateNetworks: p.private, AllowPlainHTTP: p.plain}
	return s.Send(context.Background(), d, deliver.Message{ID: "msg_1", DataType: "non-sensitive", Attempt: 1, Body: []byte(`{}`), Timestamp: time.Now()})
}

func TestGuardRefusesLoopbackAtConnectTime(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	s := webhook.NewSender("pads", "test")
	// "localhost" passes any check of the URL text; the dialer sees 127.0.0.1.
	for _, u := range []string{srv.URL, "http://localhost:" + srv.URL[len("http://127.0.0.1:"):]} {
		if res := send(s, policy{plain: true}, u); res.ErrorClass != egress.ClassBlocked || res.StatusCode != 0 {
			t.Errorf("%s: %+v, want ssrf_blocked", u, res)
		}
	}
	if hits.Load() != 0 {
		t.Fatal("a blocked destination was reached")
	}
	if res := send(s, policy{plain: true, private: true}, srv.URL); res.ErrorClass != "" || res.StatusCode != 200 {
		t.Fatalf("with allowPrivateNetworks: %+v", res)
	}
	if res := send(s, policy{private: true}, srv.URL); res.ErrorClass != webhook.ClassScheme {
		t.Fatalf("http without allowPlainHTTP: %+v", res)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	var followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) })
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { followed.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s := webhook.NewSender("pads", "test")
	if res := send(s, policy{plain: true, private: true}, srv.URL+"/hook"); res.ErrorClass != "http_3xx" || res.StatusCode != 302 {
		t.Fatalf("redirect: %+v", res)
	}
	if followed.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

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

func send(s *webhook.Sender, url string) deliver.Result {
	d := &config.Destination{Type: "webhook", URL: url, Timeout: config.Duration(2 * time.Second)}
	return s.Send(context.Background(), "acme", d, deliver.Message{ID: "msg_1", DataType: "non-sensitive", Attempt: 1, Body: []byte(`{}`), Timestamp: time.Now()})
}

func TestGuardRefusesLoopbackAtConnectTime(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	guarded := webhook.NewSender("pads", "test", func() config.DestinationPolicy { return config.DestinationPolicy{AllowPlainHTTP: true} })
	// "localhost" passes any check of the URL text; the dialer sees 127.0.0.1.
	for _, u := range []string{srv.URL, "http://localhost:" + srv.URL[len("http://127.0.0.1:"):]} {
		if res := send(guarded, u); res.ErrorClass != egress.ClassBlocked || res.StatusCode != 0 {
			t.Errorf("%s: %+v, want ssrf_blocked", u, res)
		}
	}
	if hits.Load() != 0 {
		t.Fatal("a blocked destination was reached")
	}
	open := webhook.NewSender("pads", "test", func() config.DestinationPolicy {
		return config.DestinationPolicy{AllowPlainHTTP: true, AllowPrivateNetworks: true}
	})
	if res := send(open, srv.URL); res.ErrorClass != "" || res.StatusCode != 200 {
		t.Fatalf("with allowPrivateNetworks: %+v", res)
	}
	strict := webhook.NewSender("pads", "test", func() config.DestinationPolicy { return config.DestinationPolicy{AllowPrivateNetworks: true} })
	if res := send(strict, srv.URL); res.ErrorClass != webhook.ClassScheme {
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
	s := webhook.NewSender("pads", "test", func() config.DestinationPolicy {
		return config.DestinationPolicy{AllowPlainHTTP: true, AllowPrivateNetworks: true}
	})
	if res := send(s, srv.URL+"/hook"); res.ErrorClass != "http_3xx" || res.StatusCode != 302 {
		t.Fatalf("redirect: %+v", res)
	}
	if followed.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

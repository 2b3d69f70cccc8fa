package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pads-dev/pads/internal/config"
)

// A destination in the middle of a secret rotation, run through the real
// binary on SQLite: a delivery is signed with the current secret and each
// previous secret whose expires is still ahead, one space-separated
// webhook-signature value each, and never with a previous secret whose
// expires has passed. Each value is checked alone with the official
// Standard Webhooks library, since Verify accepts a header as soon as any
// one of its values matches.
func TestPreviousSecretsStopSigningAtTheirExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real process")
	}
	t.Parallel()
	secrets := []struct {
		name    string
		secret  string
		expires string // "": the current secret
		signs   bool
	}{
		{"current", config.NewWebhookSecret(), "", true},
		{"previous, expires far ahead", config.NewWebhookSecret(), "2999-01-01T00:00:00Z", true},
		{"previous, expired", config.NewWebhookSecret(), "2020-01-01T00:00:00Z", false},
	}
	auth := "        auth:\n          hmac:\n            secret: " + secrets[0].secret + "\n            previousSecrets:\n"
	for _, s := range secrets[1:] {
		auth += "              - {secret: " + s.secret + ", expires: " + s.expires + "}\n"
	}
	rc := newReceiver(t, nil)
	path := deliveryConfig(t, webhookDest(rc.srv.URL+"/pads", auth), "")
	p := startProc(t, filepath.Dir(path), "--config", path)
	s := &server{t: t, base: p.base, logs: p.logs, stop: func() {}}
	completeForm(t, s, procToken(t, p.base, "acme", acmeKey), "acme-main", "ada@example.com")
	got := rc.wait(t, 1, 10*time.Second)[0]

	sigs := strings.Fields(got.header.Get("webhook-signature"))
	want := 0
	for _, sc := range secrets {
		if sc.signs {
			want++
		}
	}
	if len(sigs) != want {
		t.Fatalf("webhook-signature has %d values, want %d: %q", len(sigs), want, sigs)
	}
	for _, sc := range secrets {
		t.Run(sc.name, func(t *testing.T) {
			want := 0
			if sc.signs {
				want = 1
			}
			if n := signedBy(t, sc.secret, got, sigs); n != want {
				t.Errorf("%d of the signatures %q are this secret's, want %d", n, sigs, want)
			}
		})
	}
}

// signedBy counts the values of sigs that secret's key verifies over r,
// each value checked alone.
func signedBy(t *testing.T, secret string, r received, sigs []string) int {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sig := range sigs {
		h := http.Header{}
		h.Set("webhook-id", r.header.Get("webhook-id"))
		h.Set("webhook-timestamp", r.header.Get("webhook-timestamp"))
		h.Set("webhook-signature", sig)
		if wh.Verify(r.body, h) == nil {
			n++
		}
	}
	return n
}

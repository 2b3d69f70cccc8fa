package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/deliver/webhook"
	"github.com/pads-dev/pads/internal/store"
)

// An OAuth2 destination's token is fetched once and reused; a change of
// the destination's token settings (a reload rotated its secret) fetches
// a new one, and so does a reload that dropped the destination.
func TestOAuth2TokensAreKeptPerDestinationUntilTheirSettingsChange(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"tok","token_type":"Bearer","expires_in":3600}`))
	}))
	defer tokens.Close()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hook.Close()

	s := webhook.NewSender("pads", "test")
	d := deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "hook"}, Type: "webhook", URL: hook.URL,
		Timeout: 5 * time.Second, AllowPrivateNetworks: true, AllowPlainHTTP: true,
		Auth: config.Auth{OAuth2: &config.OAuth2Auth{TokenURL: tokens.URL, ClientID: "pads", ClientSecret: "s1"}}}
	send := func() {
		t.Helper()
		res := s.Send(context.Background(), &d, deliver.Message{ID: "msg_1", DataType: "non-sensitive", Body: []byte(`{}`), Timestamp: time.Now()})
		if res.ErrorClass != "" {
			t.Fatalf("Send = %+v", res)
		}
	}
	send()
	send()
	if n := fetches.Load(); n != 1 {
		t.Fatalf("%d token fetches for two sends, want 1", n)
	}
	d.Auth.OAuth2 = &config.OAuth2Auth{TokenURL: tokens.URL, ClientID: "pads", ClientSecret: "s2"}
	send()
	if n := fetches.Load(); n != 2 {
		t.Fatalf("%d token fetches after the secret changed, want 2", n)
	}
	s.Reload([]deliver.Destination{d})
	send()
	if n := fetches.Load(); n != 2 {
		t.Fatalf("a reload that kept the settings fetched a new token (%d fetches)", n)
	}
	s.Reload(nil)
	send()
	if n := fetches.Load(); n != 3 {
		t.Fatalf("%d token fetches after a reload dropped the destination, want 3", n)
	}
}

// A token endpoint that hangs costs one fetch per destination at a time,
// bounded by the attempt's deadline: every attempt ends by its own deadline
// as auth_failed, and the failure is held briefly, so the attempts that
// follow do not ask again. (The token source used to fetch with
// context.Background() under a lock: each attempt queued behind a fetch
// that never ended, and the delivery workers were wedged.)
func TestAHangingTokenEndpointCostsOneBoundedFetch(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	release := make(chan struct{})
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer tokens.Close()
	defer close(release)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hook.Close()

	s := webhook.NewSender("pads", "test")
	d := deliver.Destination{Ref: store.DestinationRef{ClientID: "acme", ID: "hook"}, Type: "webhook", URL: hook.URL,
		Timeout: time.Second, AllowPrivateNetworks: true, AllowPlainHTTP: true,
		Auth: config.Auth{OAuth2: &config.OAuth2Auth{TokenURL: tokens.URL, ClientID: "pads", ClientSecret: "s1"}}}
	results := make(chan deliver.Result)
	for i := range 16 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			results <- s.Send(ctx, &d, deliver.Message{ID: fmt.Sprintf("msg_%d", i), DataType: "non-sensitive", Body: []byte(`{}`), Timestamp: time.Now()})
		}()
	}
	for range 16 {
		select {
		case res := <-results:
			if res.ErrorClass != webhook.ClassAuth {
				t.Fatalf("Send = %+v, want %s", res, webhook.ClassAuth)
			}
		case <-time.After(time.Minute):
			t.Fatal("an attempt outlived its deadline waiting for a token")
		}
	}
	res := s.Send(context.Background(), &d, deliver.Message{ID: "msg_late", DataType: "non-sensitive", Body: []byte(`{}`), Timestamp: time.Now()})
	if res.ErrorClass != webhook.ClassAuth {
		t.Fatalf("an attempt right after the failure: %+v", res)
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("%d token fetches, want 1 (one at a time, its failure held)", n)
	}
}

package webhook

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// errAuth is a destination whose credentials could not be obtained: the
// attempt fails rather than go out unauthenticated.
var errAuth = errors.New("destination credentials unavailable")

// tokenFailureHold is how long a failed token fetch is remembered: the
// destination's attempts in that time fail as auth_failed at once instead
// of each asking a failing token endpoint again.
const tokenFailureHold = 10 * time.Second

// tokens caches one OAuth2 client-credentials token per destination. A
// token is reused until it expires; after a 401 it is dropped so the next
// request fetches a fresh one, and a reload that changes the destination's
// token settings drops it too.
type tokens struct {
	mu     sync.Mutex
	byDest map[store.DestinationRef]*tokenSource
	now    func() time.Time
}

// tokenSource is a destination's token and the settings it was made
// from. At most one fetch per destination is in flight; other attempts
// wait for it, each no longer than its own deadline, and a failure is
// held for tokenFailureHold.
type tokenSource struct {
	settings config.OAuth2Auth
	private  bool // fetches through the client for allowPrivateNetworks

	mu          sync.Mutex
	tok         *oauth2.Token
	fetching    chan struct{} // closed when the fetch in flight ends
	failedUntil time.Time
}

// source returns the destination's token source.
func (t *tokens) source(d *deliver.Destination) *tokenSource {
	t.mu.Lock()
	defer t.mu.Unlock()
	ts, ok := t.byDest[d.Ref]
	if !ok || !reflect.DeepEqual(ts.settings, *d.Auth.OAuth2) || ts.private != d.AllowPrivateNetworks {
		ts = &tokenSource{settings: *d.Auth.OAuth2, private: d.AllowPrivateNetworks}
		t.byDest[d.Ref] = ts
	}
	return ts
}

// token returns a valid access token, fetching one through hc (so the
// token endpoint passes the same SSRF guard) within ctx's deadline.
func (ts *tokenSource) token(ctx context.Context, hc *http.Client, now func() time.Time) (string, error) {
	for {
		ts.mu.Lock()
		switch {
		case ts.tok.Valid():
			tok := ts.tok.AccessToken
			ts.mu.Unlock()
			return tok, nil
		case now().Before(ts.failedUntil):
			ts.mu.Unlock()
			return "", errAuth
		case ts.fetching != nil:
			wait := ts.fetching
			ts.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return "", errAuth
			}
		}
		ts.fetching = make(chan struct{})
		ts.mu.Unlock()
		return ts.fetch(ctx, hc, now)
	}
}

func (ts *tokenSource) fetch(ctx context.Context, hc *http.Client, now func() time.Time) (string, error) {
	a := ts.settings
	cc := clientcredentials.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: a.TokenURL, Scopes: a.Scopes}
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, hc))
	ts.mu.Lock()
	defer ts.mu.Unlock()
	close(ts.fetching)
	ts.fetching = nil
	if err != nil || tok.AccessToken == "" {
		ts.failedUntil = now().Add(tokenFailureHold)
		return "", errAuth
	}
	ts.tok = tok
	return tok.AccessToken, nil
}

func (t *tokens) forget(ref store.DestinationRef) {
	t.mu.Lock()
	delete(t.byDest, ref)
	t.mu.Unlock()
}

// reload keeps the sources of destinations still in force with the same
// token settings.
func (t *tokens) reload(dests []deliver.Destination) {
	current := map[store.DestinationRef]*deliver.Destination{}
	for i := range dests {
		current[dests[i].Ref] = &dests[i]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for ref, ts := range t.byDest {
		d, ok := current[ref]
		if !ok || d.Auth.OAuth2 == nil || !reflect.DeepEqual(ts.settings, *d.Auth.OAuth2) || ts.private != d.AllowPrivateNetworks {
			delete(t.byDest, ref)
		}
	}
}

// authorize adds the destination's credentials to req.
func (s *Sender) authorize(req *http.Request, hc *http.Client, d *deliver.Destination) error {
	a := &d.Auth
	switch {
	case a.APIKey != nil:
		req.Header.Set(a.APIKey.Header, a.APIKey.Value)
	case a.Bearer != nil:
		req.Header.Set("Authorization", "Bearer "+a.Bearer.Token)
	case a.Basic != nil:
		req.SetBasicAuth(a.Basic.Username, a.Basic.Password)
	case a.OAuth2 != nil:
		tok, err := s.tokens.source(d).token(req.Context(), hc, s.tokens.now)
		if err != nil {
			return errAuth
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return nil
}

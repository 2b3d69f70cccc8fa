package webhook

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/pads-dev/pads/internal/config"
)

// errAuth is a destination whose credentials could not be obtained: the
// attempt fails rather than go out unauthenticated.
var errAuth = errors.New("destination credentials unavailable")

// tokens caches one OAuth2 client-credentials token source per destination.
// A source reuses its token until it expires; after a 401 the source is
// replaced so the next request fetches a fresh token.
type tokens struct {
	mu     sync.Mutex
	byDest map[*config.OAuth2Auth]oauth2.TokenSource
}

// maxSources bounds the cache; reloads leave the sources of replaced
// destinations behind, and past the bound the cache starts over.
const maxSources = 10_000

// source returns the destination's token source; a new one fetches its
// tokens through hc, so the token endpoint passes the same SSRF guard.
func (t *tokens) source(a *config.OAuth2Auth, hc *http.Client) oauth2.TokenSource {
	t.mu.Lock()
	defer t.mu.Unlock()
	ts, ok := t.byDest[a]
	if !ok {
		if len(t.byDest) >= maxSources {
			clear(t.byDest)
		}
		cc := clientcredentials.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: a.TokenURL, Scopes: a.Scopes}
		ts = cc.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, hc))
		t.byDest[a] = ts
	}
	return ts
}

func (t *tokens) forget(a *config.OAuth2Auth) {
	t.mu.Lock()
	delete(t.byDest, a)
	t.mu.Unlock()
}

// authorize adds the destination's credentials to req.
func (s *Sender) authorize(req *http.Request, hc *http.Client, a *config.Auth) error {
	switch {
	case a.APIKey != nil:
		req.Header.Set(a.APIKey.Header, a.APIKey.Value)
	case a.Bearer != nil:
		req.Header.Set("Authorization", "Bearer "+a.Bearer.Token)
	case a.Basic != nil:
		req.SetBasicAuth(a.Basic.Username, a.Basic.Password)
	case a.OAuth2 != nil:
		tok, err := s.tokens.source(a.OAuth2, hc).Token()
		if err != nil || tok.AccessToken == "" {
			return errAuth
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return nil
}

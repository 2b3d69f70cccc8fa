package webhook

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// errAuth is a destination whose credentials could not be obtained: the
// attempt fails rather than go out unauthenticated.
var errAuth = errors.New("destination credentials unavailable")

// tokens caches one OAuth2 client-credentials token source per
// destination. A source reuses its token until it expires; after a 401 it
// is replaced so the next request fetches a fresh token, and a reload that
// changes the destination's token settings replaces it too.
type tokens struct {
	mu     sync.Mutex
	byDest map[store.DestinationRef]*tokenSource
}

// tokenSource is a destination's token source and the settings it was
// made from.
type tokenSource struct {
	settings deliver.OAuth2Auth
	private  bool // fetches through the client for allowPrivateNetworks
	src      oauth2.TokenSource
}

// source returns the destination's token source; a new one fetches its
// tokens through hc, so the token endpoint passes the same SSRF guard.
func (t *tokens) source(d *deliver.Destination, hc *http.Client) oauth2.TokenSource {
	t.mu.Lock()
	defer t.mu.Unlock()
	ts, ok := t.byDest[d.Ref]
	if !ok || !reflect.DeepEqual(ts.settings, *d.Auth.OAuth2) || ts.private != d.AllowPrivateNetworks {
		a := d.Auth.OAuth2
		cc := clientcredentials.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: a.TokenURL, Scopes: a.Scopes}
		ts = &tokenSource{settings: *a, private: d.AllowPrivateNetworks,
			src: cc.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, hc))}
		t.byDest[d.Ref] = ts
	}
	return ts.src
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
	case a.Bearer != "":
		req.Header.Set("Authorization", "Bearer "+a.Bearer)
	case a.Basic != nil:
		req.SetBasicAuth(a.Basic.Username, a.Basic.Password)
	case a.OAuth2 != nil:
		tok, err := s.tokens.source(d, hc).Token()
		if err != nil || tok.AccessToken == "" {
			return errAuth
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return nil
}

package main

import (
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// destinationTable is one loaded config's destinations as the senders
// take them: made once per load, so an attempt only looks one up.
type destinationTable struct {
	cfg   *config.Config
	byPtr map[*config.Destination]*deliver.Destination
	all   []deliver.Destination
	// unordered are the destinations with ordering: none.
	unordered []store.DestinationRef
}

func newDestinationTable(cfg *config.Config) *destinationTable {
	t := &destinationTable{cfg: cfg, byPtr: map[*config.Destination]*deliver.Destination{}}
	for i := range cfg.Clients {
		cl := &cfg.Clients[i]
		for j := range cl.Destinations {
			d := &cl.Destinations[j]
			t.all = append(t.all, destination(cfg.Destinations, cl.ID, d))
			if d.Ordering == config.OrderingNone {
				t.unordered = append(t.unordered, store.DestinationRef{ClientID: cl.ID, ID: d.ID})
			}
		}
	}
	k := 0
	for i := range cfg.Clients {
		cl := &cfg.Clients[i]
		for j := range cl.Destinations {
			t.byPtr[&cl.Destinations[j]] = &t.all[k]
			k++
		}
	}
	return t
}

// resolve returns the settings in force of the destination ref names: by
// its id, or by the key deliveries used before destinations had ids.
func (t *destinationTable) resolve(ref store.DestinationRef) (*deliver.Destination, bool) {
	d := t.cfg.Destination(ref.ClientID, ref.ID)
	if d == nil {
		return nil, false
	}
	return t.byPtr[d], true
}

// destination turns a config destination into the value senders take.
func destination(policy config.DestinationPolicy, clientID string, d *config.Destination) deliver.Destination {
	out := deliver.Destination{
		Ref:     store.DestinationRef{ClientID: clientID, ID: d.ID},
		Type:    d.Type,
		Format:  d.Format,
		Timeout: d.Timeout.D(),
		Retry:   deliver.Retry{Attempts: d.Retry.Attempts, InitialDelay: d.Retry.InitialDelay.D(), Multiplier: d.Retry.Multiplier},
		URL:     d.URL, Headers: d.Headers,
		TopicARN: d.TopicARN, Region: d.Region, Endpoint: d.Endpoint, RoleARN: d.RoleARN,
		AllowPrivateNetworks: policy.AllowPrivateNetworks, AllowPlainHTTP: policy.AllowPlainHTTP,
	}
	a := &d.Auth
	switch {
	case a.APIKey != nil:
		out.Auth.APIKey = &deliver.APIKeyAuth{Header: a.APIKey.Header, Value: a.APIKey.Value}
	case a.Bearer != nil:
		out.Auth.Bearer = a.Bearer.Token
	case a.Basic != nil:
		out.Auth.Basic = &deliver.BasicAuth{Username: a.Basic.Username, Password: a.Basic.Password}
	case a.OAuth2 != nil:
		out.Auth.OAuth2 = &deliver.OAuth2Auth{TokenURL: a.OAuth2.TokenURL, ClientID: a.OAuth2.ClientID,
			ClientSecret: a.OAuth2.ClientSecret, Scopes: a.OAuth2.Scopes}
	}
	if a.HMAC != nil {
		secrets := []string{a.HMAC.Secret}
		for _, p := range a.HMAC.PreviousSecrets {
			secrets = append(secrets, p.Secret)
		}
		for _, s := range secrets {
			if k, err := config.WebhookSecret(s); err == nil { // validated at load
				out.Auth.HMACKeys = append(out.Auth.HMACKeys, k)
			}
		}
	}
	return out
}

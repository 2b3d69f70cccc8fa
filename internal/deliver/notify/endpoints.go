package notify

import (
	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/deliver"
	"github.com/pads-dev/pads/internal/store"
)

// Endpoints returns the config's operator endpoints as the webhook sender
// takes them, under the outbound policy of every destination.
func Endpoints(cfg *config.Config) []deliver.Destination {
	out := make([]deliver.Destination, 0, len(cfg.OperatorEvents))
	for _, o := range cfg.OperatorEvents {
		d := deliver.Destination{
			Ref:  store.DestinationRef{ID: o.ID},
			Type: "webhook", Format: deliver.FormatSeedJSON, URL: o.URL, Timeout: o.Timeout.D(),
			AllowPrivateNetworks: cfg.Destinations.AllowPrivateNetworks, AllowPlainHTTP: cfg.Destinations.AllowPlainHTTP,
		}
		secrets := []string{o.HMAC.Secret}
		for _, p := range o.HMAC.PreviousSecrets {
			secrets = append(secrets, p.Secret)
		}
		for _, s := range secrets {
			if k, err := config.WebhookSecret(s); err == nil { // validated at load
				d.Auth.HMACKeys = append(d.Auth.HMACKeys, k)
			}
		}
		out = append(out, d)
	}
	return out
}

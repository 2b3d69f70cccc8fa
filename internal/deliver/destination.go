package deliver

import (
	"time"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store"
)

// Destination is where one client's results go, as the config in force
// says at the moment of an attempt: deliveries name their destination by
// (client, id) and are resolved to a Destination at each attempt, so a
// rotated URL or secret takes effect for retries and replays. FromConfig
// builds these from the config; senders read nothing else.
type Destination struct {
	Ref  store.DestinationRef
	Type string // "webhook" or "sns": which Sender delivers
	// Format is the body a delivery sends: FormatSeedJSON or FormatFHIR.
	Format  string
	Timeout time.Duration
	Retry   Retry
	// MaxPerSecond bounds the deliveries to it per second in this
	// process; 0: unbounded.
	MaxPerSecond float64

	// Webhook settings. Auth is the config's as written: at most one
	// method (deliver/webhook applies it); HMACKeys sign every delivery,
	// the current secret first, then each previous one while a secret is
	// rotated (see SigningKeys).
	URL      string
	Headers  map[string]string
	Auth     config.Auth
	HMACKeys []HMACKey

	// SNS settings.
	TopicARN string
	Region   string
	Endpoint string // overrides the AWS endpoint (an emulator)
	RoleARN  string // a role to assume for publishing

	// The outbound safety policy in force (the config's destinations
	// section): only for development and tests.
	AllowPrivateNetworks bool
	AllowPlainHTTP       bool
}

// The formats of a delivery's body.
const (
	// FormatSeedJSON is the seed's JSON payload (the default; "" too).
	FormatSeedJSON = "seed-json"
	// FormatFHIR is the event's FHIR R4 Bundle.
	FormatFHIR = "fhir-r4"
)

// Retry is a destination's retry schedule (see Policy).
type Retry struct {
	Attempts     int
	InitialDelay time.Duration
	Multiplier   float64
}

// Reloader is a Sender that keeps something per destination (connections,
// tokens, SDK clients). It is told the destinations in force after each
// config load, and drops what it keeps for destinations that are gone or
// whose settings changed.
type Reloader interface {
	Reload(dests []Destination)
}

// HMACKey is a signing secret, decoded, and when it stops signing (zero:
// never; a previous secret given with an expiry).
type HMACKey struct {
	Key     []byte
	Expires time.Time
}

// SigningKeys returns the keys that sign a message sent at: every key
// but the previous secrets expired by then.
func (d *Destination) SigningKeys(at time.Time) [][]byte {
	keys := make([][]byte, 0, len(d.HMACKeys))
	for _, k := range d.HMACKeys {
		if k.Expires.IsZero() || at.Before(k.Expires) {
			keys = append(keys, k.Key)
		}
	}
	return keys
}

// hmacKeys decodes a config's signing secrets, the current one first.
func hmacKeys(h *config.HMACAuth) []HMACKey {
	if h == nil {
		return nil
	}
	var out []HMACKey
	if k, err := config.WebhookSecret(h.Secret); err == nil { // validated at load
		out = append(out, HMACKey{Key: k})
	}
	for _, p := range h.PreviousSecrets {
		if k, err := config.WebhookSecret(p.Secret); err == nil {
			out = append(out, HMACKey{Key: k, Expires: p.ExpiresAt()})
		}
	}
	return out
}

// OperatorEndpoints returns the config's operator endpoints as the webhook
// sender takes them, under the outbound policy of every destination.
func OperatorEndpoints(cfg *config.Config) []Destination {
	out := make([]Destination, 0, len(cfg.OperatorEvents))
	for _, o := range cfg.OperatorEvents {
		out = append(out, Destination{
			Ref:  store.DestinationRef{ID: o.ID},
			Type: "webhook", Format: FormatSeedJSON, URL: o.URL, Timeout: o.Timeout.D(), HMACKeys: hmacKeys(o.HMAC),
			AllowPrivateNetworks: cfg.Destinations.AllowPrivateNetworks, AllowPlainHTTP: cfg.Destinations.AllowPlainHTTP,
		})
	}
	return out
}

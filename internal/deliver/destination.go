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

	// Webhook settings. Auth is the config's as written: at most one
	// method (deliver/webhook applies it); HMACKeys sign every delivery,
	// the current secret first, then each previous one while a secret is
	// rotated.
	URL      string
	Headers  map[string]string
	Auth     config.Auth
	HMACKeys [][]byte

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

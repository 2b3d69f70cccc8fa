package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is a loaded, validated configuration.
type Config struct {
	ServiceName  string            `yaml:"serviceName"`
	Listen       string            `yaml:"listen"`
	DataDir      string            `yaml:"dataDir"`
	Database     string            `yaml:"database"`
	TokenTTL     Duration          `yaml:"tokenTTL"`
	Limits       Limits            `yaml:"limits"`
	Secrets      Secrets           `yaml:"secrets"`
	Destinations DestinationPolicy `yaml:"destinations"`
	Console      Console           `yaml:"console"`
	Metrics      Metrics           `yaml:"metrics"`
	// TLS, when it names a certificate, makes pads serve HTTPS itself.
	TLS TLS `yaml:"tls"`
	// TrustedProxies are the addresses (CIDR ranges or single addresses)
	// of proxies whose X-Forwarded-For pads believes; see ClientAddr.
	TrustedProxies []string `yaml:"trustedProxies"`
	Clients        []Client `yaml:"clients"`
	Admins         []Admin  `yaml:"admins"`
	// OperatorEvents are the endpoints told when a destination starts or
	// stops failing, a delivery fails for good, or a destination is paused
	// or resumed.
	OperatorEvents []OperatorEndpoint `yaml:"operatorEvents"`

	// Path is the file the config was read from, "" for the built-in one.
	Path string `yaml:"-"`

	clients      map[string]*Client
	admins       map[string]*Admin
	funnels      map[string]funnelRef
	destinations map[destinationRef]*Destination
	proxies      []netip.Prefix
	standIns     []string        // paths given stand-in values (LoadForReading)
	lines        map[string]int  // value path -> line, for error messages
	problems     Problems        // what validation found, see fail
	failed       map[string]bool // paths with a problem reported
}

// Limits bounds what one caller can make pads do.
type Limits struct {
	MaxBodyBytes  int64    `yaml:"maxBodyBytes"`
	LoginFailures int      `yaml:"loginFailures"`
	LoginWindow   Duration `yaml:"loginWindow"`
	// DeliveryLease is how long a process holds a claimed delivery; with
	// several processes it is how soon another takes over a dead one's.
	DeliveryLease Duration `yaml:"deliveryLease"`
	// MaxConnections bounds the client connections open at once; a
	// connection past it is closed as soon as it is accepted.
	MaxConnections int `yaml:"maxConnections"`
	// MaxConnectionsPerAddress bounds the connections open at once from
	// one address (an IPv6 /64); trustedProxies have no bound of their
	// own.
	MaxConnectionsPerAddress int `yaml:"maxConnectionsPerAddress"`
	// ReadHeaderTimeout bounds the time from a connection's first byte (or
	// its TLS handshake) to the end of a request's headers.
	ReadHeaderTimeout Duration `yaml:"readHeaderTimeout"`
	// ReadTimeout bounds the time to read a whole request, headers and
	// body: a body trickled in more slowly is cut off.
	ReadTimeout Duration `yaml:"readTimeout"`
	// WriteTimeout bounds the time from the end of a request's headers to
	// the end of its answer: a client that does not read is cut off.
	WriteTimeout Duration `yaml:"writeTimeout"`
	// IdleTimeout bounds how long a keep-alive connection waits for its
	// next request.
	IdleTimeout Duration `yaml:"idleTimeout"`
}

// ClientLimits bound one client's saves: SavesPerSecond on average, up to
// Burst at once (a token bucket).
type ClientLimits struct {
	SavesPerSecond float64 `yaml:"savesPerSecond"`
	Burst          int     `yaml:"burst"`
}

// TLS names the certificate pads serves HTTPS with; both files are PEM.
// They are read at start and again on every reload.
type TLS struct {
	CertFile string `yaml:"certFile"`
	KeyFile  string `yaml:"keyFile"`
}

// Enabled reports whether pads serves HTTPS.
func (t TLS) Enabled() bool { return t.CertFile != "" }

// Secrets are the keys pads itself needs. Absent ones are generated into
// DataDir on first start.
type Secrets struct {
	JWTKeys        []SecretKey `yaml:"jwtKeys"`
	EncryptionKeys []SecretKey `yaml:"encryptionKeys"`
}

// SecretKey is one named key, base64 in the file.
type SecretKey struct {
	ID  string `yaml:"id"`
	Key string `yaml:"key"`
}

// DestinationPolicy relaxes the outbound safety checks, for development.
type DestinationPolicy struct {
	AllowPrivateNetworks bool `yaml:"allowPrivateNetworks"`
	AllowPlainHTTP       bool `yaml:"allowPlainHTTP"`
	// FailingAfter is how many attempts in a row must fail before a
	// destination counts as failing (the operator event
	// destination.failing).
	FailingAfter int `yaml:"failingAfter"`
}

// Metrics is who may read GET /metrics, and where.
type Metrics struct {
	// Listen, when set, serves /metrics on this address only (and not on
	// the API's); it takes effect at a restart.
	Listen string `yaml:"listen"`
	// Token, when set, is the bearer token a scrape must send.
	Token string `yaml:"token"`
}

// Console holds the operator console's settings.
type Console struct {
	// InactivityTimeout ends a console session that has seen no request
	// for that long (an automatic logoff).
	InactivityTimeout Duration `yaml:"inactivityTimeout"`
}

// Client is an organisation that sends records and receives results.
type Client struct {
	ID           string        `yaml:"id"`
	APIKeys      []APIKey      `yaml:"apiKeys"`
	Limits       ClientLimits  `yaml:"limits"`
	Subscription string        `yaml:"subscription"`
	Funnels      []Funnel      `yaml:"funnels"`
	Destinations []Destination `yaml:"destinations"`
	Retention    Retention     `yaml:"retention"`

	digests [][32]byte
}

// Retention is how long pads keeps a client's data
// (docs/data-lifecycle.md); the defaults apply to keys not given.
type Retention struct {
	// Bodies: how long an event's sealed bodies are kept after its last
	// delivery ended.
	Bodies Duration `yaml:"bodies"`
	// Deliveries: how long a finished delivery and its attempts are kept
	// after it finished.
	Deliveries Duration `yaml:"deliveries"`
	// Records: how long a record is kept after its last save; Forever (0)
	// keeps it.
	Records Lifetime `yaml:"records"`
}

// Lifetime is a duration or "forever", which is 0.
type Lifetime Duration

// Forever is the Lifetime of data kept until it is erased.
const Forever Lifetime = 0

// UnmarshalYAML reads "forever" or a Go duration string.
func (l *Lifetime) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) == "forever" {
		*l = Forever
		return nil
	}
	var d Duration
	if err := d.UnmarshalYAML(n); err != nil {
		return fmt.Errorf("line %d: %q is neither forever nor a duration (write e.g. 8760h)", n.Line, n.Value)
	}
	*l = Lifetime(d)
	return nil
}

// D returns the lifetime as a time.Duration; 0 is forever.
func (l Lifetime) D() time.Duration { return time.Duration(l) }

// The two subscriptions.
const (
	SubscriptionNonSensitive = "non-sensitive"
	SubscriptionFull         = "full"
)

// KeyDigests are the SHA-256 digests of the client's API keys.
func (c *Client) KeyDigests() [][32]byte { return c.digests }

// Full reports whether the client receives health results.
func (c *Client) Full() bool { return c.Subscription == SubscriptionFull }

// Admin is an operator of the admin API.
type Admin struct {
	ID      string   `yaml:"id"`
	APIKeys []APIKey `yaml:"apiKeys"`

	digests [][32]byte
}

// KeyDigests are the SHA-256 digests of the admin's API keys.
func (a *Admin) KeyDigests() [][32]byte { return a.digests }

// Admin returns the admin with the id, or nil.
func (c *Config) Admin(id string) *Admin { return c.admins[id] }

// APIKey is one client API key: the key itself or its SHA-256 hex digest.
type APIKey struct {
	SHA256 string `yaml:"sha256"`
	Key    string `yaml:"key"`
}

// Funnel routes records to its client's destinations of one environment.
type Funnel struct {
	ID          string `yaml:"id"`
	Environment string `yaml:"environment"`
}

// DefaultEnvironment is the environment of a funnel or destination that
// names none.
const DefaultEnvironment = "production"

// Destination is where a client's results are pushed.
type Destination struct {
	// ID names the destination within its client; deliveries refer to it
	// by (client, ID), and resolve it to its current settings at each
	// attempt. Default: the environment and the destination's place among
	// the client's destinations of that environment ("production-1").
	ID          string            `yaml:"id"`
	Environment string            `yaml:"environment"`
	Type        string            `yaml:"type"`
	URL         string            `yaml:"url"`
	Auth        Auth              `yaml:"auth"`
	Headers     map[string]string `yaml:"headers"`
	Timeout     Duration          `yaml:"timeout"`
	Retry       Retry             `yaml:"retry"`
	TopicARN    string            `yaml:"topicArn"`
	Region      string            `yaml:"region"`
	Endpoint    string            `yaml:"endpoint"`
	// RoleARN, for sns, is a role to assume for publishing.
	RoleARN string `yaml:"roleArn"`
	// Ordering is OrderingPerRecord (a record's deliveries in the order of
	// their events) or OrderingNone.
	Ordering string `yaml:"ordering"`
	// Format is what a delivery's body is: FormatSeedJSON (the seed's
	// payload) or FormatFHIR (a FHIR R4 Bundle).
	Format string `yaml:"format"`
	// Events are the client's events the destination gets (EventNonSensitive,
	// EventSensitive, EventResultsUpdated); never more than the client's
	// subscription allows. Default: what the subscription allows, never
	// results-updated.
	Events []string `yaml:"events"`
	// MaxPerSecond bounds the deliveries to the destination, per process
	// (a token bucket with a burst of 1); 0: unbounded.
	MaxPerSecond float64 `yaml:"maxPerSecond"`
	// Local marks a receiver on this machine (pads listen): its url must be
	// plain http to a loopback address, allowed for this destination only.
	Local bool `yaml:"local"`
}

// The formats of a destination's deliveries.
const (
	FormatSeedJSON = "seed-json"
	FormatFHIR     = "fhir-r4"
)

// The orderings of a destination's deliveries.
const (
	OrderingPerRecord = "per-record"
	OrderingNone      = "none"
)

// legacyKey is how deliveries made before destinations had ids name their
// destination: a hash of its client, environment, type and address. Such a
// delivery still resolves to a destination whose settings hash the same.
func legacyKey(clientID string, d *Destination) string {
	h := sha256.Sum256([]byte(strings.Join([]string{clientID, d.Environment, d.Type, d.URL, d.TopicARN}, "\x00")))
	return d.Type + "-" + hex.EncodeToString(h[:8])
}

// Auth is how pads authenticates to a destination: at most one of APIKey,
// Bearer, Basic and OAuth2, plus optional HMAC signing.
type Auth struct {
	APIKey *APIKeyAuth `yaml:"apiKey"`
	Bearer *BearerAuth `yaml:"bearer"`
	Basic  *BasicAuth  `yaml:"basic"`
	OAuth2 *OAuth2Auth `yaml:"oauth2"`
	HMAC   *HMACAuth   `yaml:"hmac"`
}

// APIKeyAuth sends a fixed key in a header.
type APIKeyAuth struct {
	Header string `yaml:"header"`
	Value  string `yaml:"value"`
}

// BearerAuth sends Authorization: Bearer <token>.
type BearerAuth struct {
	Token string `yaml:"token"`
}

// BasicAuth sends HTTP Basic credentials.
type BasicAuth struct {
	Username string `yaml:"username"`
	Password string `yaml:"password"`
}

// OAuth2Auth gets a token by the client-credentials grant.
type OAuth2Auth struct {
	TokenURL     string   `yaml:"tokenURL"`
	ClientID     string   `yaml:"clientID"`
	ClientSecret string   `yaml:"clientSecret"`
	Scopes       []string `yaml:"scopes"`
}

// HMACAuth signs deliveries the Standard Webhooks way.
type HMACAuth struct {
	Secret string `yaml:"secret"`
	// StoredSecret names a secret in DataDir/secrets.json's webhookSecrets
	// instead: the starter config's local destination, whose secret pads
	// generated and pads listen reads there. Load puts it in Secret.
	StoredSecret string `yaml:"storedSecret"`
	// PreviousSecrets also sign while the secret is rotated; each may end
	// at a time of its own.
	PreviousSecrets []PreviousSecret `yaml:"previousSecrets"`
}

// Retry is a destination's retry schedule.
type Retry struct {
	Attempts     int      `yaml:"attempts"`
	InitialDelay Duration `yaml:"initialDelay"`
	Multiplier   float64  `yaml:"multiplier"`
}

// Duration is a time.Duration written as a Go duration string ("30s").
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil || n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: %q is not a duration (write e.g. 30s, 200ms, 1h)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// D returns the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

type funnelRef struct {
	funnel *Funnel
	client *Client
}

// Destination returns the client's destination with the id, or nil.
func (c *Config) Destination(clientID, id string) *Destination {
	return c.destinations[destinationRef{clientID, id}]
}

// destinationRef names a destination: (client, destination id), or, for a
// delivery made before destinations had ids, (client, legacy key).
type destinationRef struct{ client, id string }

// TrustedProxy reports whether addr is in one of the trustedProxies ranges.
func (c *Config) TrustedProxy(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range c.proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Client returns the client with the id, or nil.
func (c *Config) Client(id string) *Client { return c.clients[id] }

// Funnel returns the funnel with the id and the client that owns it, or nils.
func (c *Config) Funnel(id string) (*Funnel, *Client) {
	r := c.funnels[id]
	return r.funnel, r.client
}

// DestinationsFor returns the client's destinations of one environment.
func (c *Client) DestinationsFor(environment string) []*Destination {
	var out []*Destination
	for i := range c.Destinations {
		if c.Destinations[i].Environment == environment {
			out = append(out, &c.Destinations[i])
		}
	}
	return out
}

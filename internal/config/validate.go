package config

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Defaults of the optional keys; docs/configuration.md lists them.
const (
	DefaultServiceName   = "pads"
	DefaultListen        = "127.0.0.1:8080"
	DefaultDataDir       = "./pads-data"
	DefaultTokenTTL      = time.Hour
	DefaultMaxBodyBytes  = 64 << 10
	DefaultLoginFailures = 10
	DefaultLoginWindow   = 15 * time.Minute
	DefaultDeliveryLease = 4 * MaxTimeout
	DefaultTimeout       = 30 * time.Second
	MaxTimeout           = 30 * time.Second
	DefaultAttempts      = 3
	DefaultInitialDelay  = 30 * time.Second
	DefaultMultiplier    = 4
	// DefaultMaxConnections fits a 2-core machine: it saturates both cores
	// with saves many times over, and costs at most a few tens of MiB.
	DefaultMaxConnections = 1024
	// DefaultMaxConnectionsPerAddress leaves one host a quarter of the
	// default places: many times what a client's connection pool opens.
	DefaultMaxConnectionsPerAddress = 256
	DefaultReadHeaderTimeout        = 10 * time.Second
	DefaultReadTimeout              = 30 * time.Second
	DefaultWriteTimeout             = 30 * time.Second
	// DefaultIdleTimeout outlasts the usual load balancer's idle timeout
	// (60 s), so the balancer, not pads, closes idle connections.
	DefaultIdleTimeout    = 120 * time.Second
	DefaultSavesPerSecond = 1000
	// DefaultInactivityTimeout logs an idle console session off, as
	// HIPAA 164.312(a)(2)(iii) asks.
	DefaultInactivityTimeout = 15 * time.Minute
	// DefaultBodiesRetention keeps the bodies pads delivered for a week
	// after their last delivery: long enough for a client to notice a lost
	// delivery over a weekend and have it replayed, short enough to keep
	// no more health data than that needs (docs/data-lifecycle.md).
	DefaultBodiesRetention = 7 * 24 * time.Hour
	// DefaultDeliveriesRetention keeps delivery metadata (no values), and
	// failed deliveries replayable, for 30 days: a monthly reconciliation.
	DefaultDeliveriesRetention = 30 * 24 * time.Hour
	// MinRetention is the shortest retention accepted (for tests).
	MinRetention = time.Minute
)

// DefaultRetention is the retention of a client that gives none, and of
// the data of a client no longer in the config. Records are kept until
// erased: how long a client must keep them is its own obligation.
func DefaultRetention() Retention {
	return Retention{Bodies: Duration(DefaultBodiesRetention), Deliveries: Duration(DefaultDeliveriesRetention), Records: Forever}
}

func (c *Config) withDefaults() {
	setDefault(&c.ServiceName, DefaultServiceName)
	setDefault(&c.Listen, DefaultListen)
	setDefault(&c.DataDir, DefaultDataDir)
	setDefault(&c.Database, "sqlite://"+strings.TrimSuffix(c.DataDir, "/")+"/pads.db")
	if c.TokenTTL == 0 {
		c.TokenTTL = Duration(DefaultTokenTTL)
	}
	if c.Limits.MaxBodyBytes == 0 {
		c.Limits.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Limits.LoginFailures == 0 {
		c.Limits.LoginFailures = DefaultLoginFailures
	}
	if c.Limits.LoginWindow == 0 {
		c.Limits.LoginWindow = Duration(DefaultLoginWindow)
	}
	if c.Limits.DeliveryLease == 0 {
		c.Limits.DeliveryLease = Duration(DefaultDeliveryLease)
	}
	if c.Limits.MaxConnections == 0 {
		c.Limits.MaxConnections = DefaultMaxConnections
	}
	if c.Limits.MaxConnectionsPerAddress == 0 {
		c.Limits.MaxConnectionsPerAddress = DefaultMaxConnectionsPerAddress
	}
	setDuration(&c.Limits.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDuration(&c.Limits.ReadTimeout, DefaultReadTimeout)
	setDuration(&c.Limits.WriteTimeout, DefaultWriteTimeout)
	setDuration(&c.Limits.IdleTimeout, DefaultIdleTimeout)
	if c.Destinations.FailingAfter == 0 {
		c.Destinations.FailingAfter = DefaultFailingAfter
	}
	for i := range c.OperatorEvents {
		setDuration(&c.OperatorEvents[i].Timeout, DefaultTimeout)
	}
	setDuration(&c.Console.InactivityTimeout, DefaultInactivityTimeout)
	for i := range c.Clients {
		cl := &c.Clients[i]
		setDefault(&cl.Subscription, SubscriptionNonSensitive)
		if cl.Limits.SavesPerSecond == 0 {
			cl.Limits.SavesPerSecond = DefaultSavesPerSecond
		}
		if cl.Limits.Burst == 0 {
			// Two seconds' worth: a client catching up after a pause
			// is not refused at once.
			cl.Limits.Burst = int(max(1, min(MaxBurst, math.Ceil(2*cl.Limits.SavesPerSecond))))
		}
		for j := range cl.Funnels {
			setDefault(&cl.Funnels[j].Environment, DefaultEnvironment)
		}
		setDuration(&cl.Retention.Bodies, DefaultBodiesRetention)
		setDuration(&cl.Retention.Deliveries, DefaultDeliveriesRetention)
		place := map[string]int{} // destinations so far, by environment
		for j := range cl.Destinations {
			d := &cl.Destinations[j]
			setDefault(&d.Environment, DefaultEnvironment)
			place[d.Environment]++
			setDefault(&d.ID, fmt.Sprintf("%s-%d", d.Environment, place[d.Environment]))
			if d.Timeout == 0 {
				d.Timeout = Duration(DefaultTimeout)
			}
			if d.Retry.Attempts == 0 {
				d.Retry.Attempts = DefaultAttempts
			}
			if d.Retry.InitialDelay == 0 {
				d.Retry.InitialDelay = Duration(DefaultInitialDelay)
			}
			if d.Retry.Multiplier == 0 {
				d.Retry.Multiplier = DefaultMultiplier
			}
			setDefault(&d.Ordering, OrderingPerRecord)
			setDefault(&d.Format, FormatSeedJSON)
			if d.Events == nil {
				d.Events = defaultEvents(cl)
			}
		}
	}
}

func setDefault(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

func setDuration(d *Duration, v time.Duration) {
	if *d == 0 {
		*d = Duration(v)
	}
}

var (
	serviceNameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)
	idRE          = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	envRE         = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	hexDigestRE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	topicARNRE    = regexp.MustCompile(`^arn:aws[a-z-]*:sns:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,256}(\.fifo)?)$`)
	roleARNRE     = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$`)
)

// MinAPIKeyLength is the shortest API key accepted in clear in the config:
// keys are the only secret between the internet and patient data.
const MinAPIKeyLength = 16

// validate records every problem it finds with c.fail and goes on: an
// operator fixes a config in one pass. A check that depends on an earlier
// value being right returns after that value's problem.
func (c *Config) validate() {
	if !serviceNameRE.MatchString(c.ServiceName) {
		c.fail("serviceName", "must be 1 to 32 lower-case letters and digits, starting with a letter")
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		c.fail("listen", "must be host:port")
	}
	if !strings.HasPrefix(c.Database, "sqlite://") && !strings.HasPrefix(c.Database, "postgres://") && !strings.HasPrefix(c.Database, "postgresql://") {
		c.fail("database", "must start with sqlite:// or postgres://")
	}
	if d := c.TokenTTL.D(); d < time.Minute || d > 24*time.Hour {
		c.fail("tokenTTL", "must be between 1m and 24h")
	}
	c.validateLimits()
	if c.Metrics.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Metrics.Listen); err != nil {
			c.fail("metrics.listen", "must be host:port")
		}
	}
	if t := c.Metrics.Token; t != "" && len(t) < MinAPIKeyLength {
		c.fail("metrics.token", "must be at least %d characters", MinAPIKeyLength)
	} else {
		c.validateHeaderValue("metrics.token", t)
	}
	if d := c.Console.InactivityTimeout.D(); d < time.Minute || d > 12*time.Hour {
		c.fail("console.inactivityTimeout", "must be between 1m and 12h")
	}
	c.validateSecrets()
	c.validateTLS()
	if len(c.Clients) == 0 {
		c.fail("clients", "at least one client is needed")
	}
	c.clients = make(map[string]*Client, len(c.Clients))
	c.funnels = map[string]funnelRef{}
	c.destinations = map[destinationRef]*Destination{}
	for i := range c.Clients {
		c.validateClient(i)
	}
	c.validateLease()
	c.validateOperatorEvents()
	c.admins = map[string]*Admin{}
	for i := range c.Admins {
		c.validateAdmin(i)
	}
}

func (c *Config) validateAdmin(i int) {
	a := &c.Admins[i]
	p := fmt.Sprintf("admins[%d]", i)
	if !idRE.MatchString(a.ID) {
		c.fail(p+".id", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
	} else if _, dup := c.admins[a.ID]; dup {
		c.fail(p+".id", "admin %q is defined twice", a.ID)
	} else {
		c.admins[a.ID] = a
	}
	if len(a.APIKeys) == 0 {
		c.fail(p+".apiKeys", "at least one API key is needed")
	}
	a.digests = nil
	for j, k := range a.APIKeys {
		if d, ok := c.apiKeyDigest(fmt.Sprintf("%s.apiKeys[%d]", p, j), k); ok {
			a.digests = append(a.digests, d)
		}
	}
}

func (c *Config) validateLimits() {
	if n := c.Limits.MaxBodyBytes; n < 1024 || n > 16<<20 {
		c.fail("limits.maxBodyBytes", "must be between 1024 and 16777216")
	}
	if n := c.Limits.LoginFailures; n < 1 || n > 1000 {
		c.fail("limits.loginFailures", "must be between 1 and 1000")
	}
	if d := c.Limits.LoginWindow.D(); d < time.Second || d > 24*time.Hour {
		c.fail("limits.loginWindow", "must be between 1s and 24h")
	}
	if d := c.Limits.DeliveryLease.D(); d < 5*time.Second || d > time.Hour {
		c.fail("limits.deliveryLease", "must be between 5s and 1h")
	}
	if n := c.Limits.MaxConnections; n < 16 || n > 1<<20 {
		c.fail("limits.maxConnections", "must be between 16 and 1048576")
	}
	if n := c.Limits.MaxConnectionsPerAddress; n < 1 || n > 1<<20 {
		c.fail("limits.maxConnectionsPerAddress", "must be between 1 and 1048576")
	}
	if d := c.Limits.ReadHeaderTimeout.D(); d < time.Second || d > 5*time.Minute {
		c.fail("limits.readHeaderTimeout", "must be between 1s and 5m")
	}
	if d := c.Limits.ReadTimeout.D(); d < c.Limits.ReadHeaderTimeout.D() || d > time.Hour {
		c.fail("limits.readTimeout", "must be between limits.readHeaderTimeout (%s) and 1h", c.Limits.ReadHeaderTimeout.D())
	}
	if d := c.Limits.WriteTimeout.D(); d < time.Second || d > time.Hour {
		c.fail("limits.writeTimeout", "must be between 1s and 1h")
	}
	if d := c.Limits.IdleTimeout.D(); d < time.Second || d > time.Hour {
		c.fail("limits.idleTimeout", "must be between 1s and 1h")
	}
}

// MaxSavesPerSecond and MaxBurst bound clients[].limits.
const (
	MaxSavesPerSecond = 1_000_000
	MaxBurst          = 1_000_000
)

func (c *Config) validateTLS() {
	if (c.TLS.CertFile == "") != (c.TLS.KeyFile == "") {
		c.fail("tls", "give both certFile and keyFile")
	}
	c.proxies = nil
	for i, s := range c.TrustedProxies {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				c.fail(fmt.Sprintf("trustedProxies[%d]", i), "must be an IP address or a CIDR range (10.0.0.0/8, fd00::/8)")
				continue
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		c.proxies = append(c.proxies, p.Masked())
	}
}

// validateLease keeps the delivery lease above what an attempt can take:
// the destination's timeout, plus as long again waiting in its line for a
// slot, plus a margin. A lease that ran out under an attempt would let
// another process try the delivery at the same time.
func (c *Config) validateLease() {
	longest := time.Duration(0)
	for i := range c.Clients {
		for _, d := range c.Clients[i].Destinations {
			if t := d.Timeout.D(); t <= MaxTimeout { // a longer one is reported already
				longest = max(longest, t)
			}
		}
	}
	if least := 2*longest + 10*time.Second; c.Limits.DeliveryLease.D() < least {
		c.fail("limits.deliveryLease", "must be at least %s: twice the longest destination timeout (%s) and 10s", least, longest)
	}
}

func (c *Config) validateSecrets() {
	check := func(name string, keys []SecretKey, minLen, maxLen int) {
		seen := map[string]bool{}
		for i, k := range keys {
			p := fmt.Sprintf("secrets.%s[%d]", name, i)
			if !idRE.MatchString(k.ID) || len(k.ID) > 64 {
				c.fail(p+".id", "must be 1 to 64 letters, digits, '.', '_' or '-'")
			} else if seen[k.ID] {
				c.fail(p+".id", "id %q is given twice", k.ID)
			}
			seen[k.ID] = true
			b, err := base64.StdEncoding.DecodeString(k.Key)
			if err != nil || len(b) < minLen || len(b) > maxLen {
				c.fail(p+".key", "must be base64 of %s", sizeText(minLen, maxLen))
			}
		}
	}
	check("jwtKeys", c.Secrets.JWTKeys, 32, 1024)
	check("encryptionKeys", c.Secrets.EncryptionKeys, 32, 32)
}

func sizeText(minLen, maxLen int) string {
	if minLen == maxLen {
		return fmt.Sprintf("exactly %d bytes", minLen)
	}
	return fmt.Sprintf("at least %d bytes", minLen)
}

func (c *Config) validateClient(i int) {
	cl := &c.Clients[i]
	p := fmt.Sprintf("clients[%d]", i)
	if !idRE.MatchString(cl.ID) {
		c.fail(p+".id", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
	} else if _, dup := c.clients[cl.ID]; dup {
		c.fail(p+".id", "client %q is defined twice", cl.ID)
	} else {
		c.clients[cl.ID] = cl
	}
	if cl.Subscription != SubscriptionNonSensitive && cl.Subscription != SubscriptionFull {
		c.fail(p+".subscription", "must be non-sensitive or full")
	}
	if r := cl.Limits.SavesPerSecond; !(r > 0 && r <= MaxSavesPerSecond) {
		c.fail(p+".limits.savesPerSecond", "must be more than 0 and at most %d", MaxSavesPerSecond)
	}
	if b := cl.Limits.Burst; b < 1 || b > MaxBurst {
		c.fail(p+".limits.burst", "must be between 1 and %d", MaxBurst)
	}
	if len(cl.APIKeys) == 0 {
		c.fail(p+".apiKeys", "at least one API key is needed")
	}
	cl.digests = nil
	for j, k := range cl.APIKeys {
		if d, ok := c.apiKeyDigest(fmt.Sprintf("%s.apiKeys[%d]", p, j), k); ok {
			cl.digests = append(cl.digests, d)
		}
	}
	c.validateFunnels(p, cl)
	c.validateRetention(p+".retention", cl.Retention)
	for j := range cl.Destinations {
		d := &cl.Destinations[j]
		dp := fmt.Sprintf("%s.destinations[%d]", p, j)
		c.validateDestination(dp, d)
		c.validateDelivery(dp, cl, d)
		if _, dup := c.destinations[destinationRef{cl.ID, d.ID}]; dup {
			c.fail(dp+".id", "destination %q is defined twice for client %q", d.ID, cl.ID)
			continue
		}
		c.destinations[destinationRef{cl.ID, d.ID}] = d
	}
	// Deliveries made before destinations had ids name them by a hash of
	// their settings: resolve those to the destination whose settings still
	// hash the same, without shadowing an id.
	for j := range cl.Destinations {
		d := &cl.Destinations[j]
		ref := destinationRef{cl.ID, legacyKey(cl.ID, d)}
		if _, taken := c.destinations[ref]; !taken {
			c.destinations[ref] = d
		}
	}
}

// maxRetention bounds a retention: ten years, past any record-keeping
// rule, and far from overflowing the times computed from it.
const maxRetention = 10 * 366 * 24 * time.Hour

func (c *Config) validateRetention(p string, r Retention) {
	for _, k := range []struct {
		name string
		d    time.Duration
	}{{"bodies", r.Bodies.D()}, {"deliveries", r.Deliveries.D()}, {"records", r.Records.D()}} {
		if k.name == "records" && k.d == 0 {
			continue // forever
		}
		if k.d < MinRetention || k.d > maxRetention {
			c.fail(p+"."+k.name, "must be between %s and %s", MinRetention, maxRetention)
		}
	}
}

func (c *Config) validateFunnels(p string, cl *Client) {
	if len(cl.Funnels) == 0 {
		c.fail(p+".funnels", "at least one funnel is needed")
	}
	for j := range cl.Funnels {
		f := &cl.Funnels[j]
		fp := fmt.Sprintf("%s.funnels[%d]", p, j)
		if !envRE.MatchString(f.Environment) {
			c.fail(fp+".environment", "must be 1 to 32 lower-case letters, digits, '_' or '-'")
		}
		if !idRE.MatchString(f.ID) {
			c.fail(fp+".id", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
			continue
		}
		if prev, dup := c.funnels[f.ID]; dup {
			c.fail(fp+".id", "funnel %q is also defined by client %q", f.ID, prev.client.ID)
			continue
		}
		c.funnels[f.ID] = funnelRef{funnel: f, client: cl}
	}
}

// apiKeyDigest reports a key's problem, or returns its digest and true.
func (c *Config) apiKeyDigest(p string, k APIKey) ([32]byte, bool) {
	var d [32]byte
	switch {
	case (k.SHA256 == "") == (k.Key == ""):
		c.fail(p, "give exactly one of sha256 and key")
		return d, false
	case k.SHA256 != "":
		if !hexDigestRE.MatchString(k.SHA256) {
			c.fail(p+".sha256", "must be 64 lower-case hexadecimal digits")
			return d, false
		}
		hex.Decode(d[:], []byte(k.SHA256))
	default:
		if len(k.Key) < MinAPIKeyLength {
			c.fail(p+".key", "must be at least %d characters", MinAPIKeyLength)
			return d, false
		}
		d = DigestAPIKey(k.Key)
	}
	return d, true
}

func (c *Config) validateDestination(p string, d *Destination) {
	if !idRE.MatchString(d.ID) {
		c.fail(p+".id", "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	if !envRE.MatchString(d.Environment) {
		c.fail(p+".environment", "must be 1 to 32 lower-case letters, digits, '_' or '-'")
	}
	if t := d.Timeout.D(); t <= 0 || t > MaxTimeout {
		c.fail(p+".timeout", "must be more than 0 and at most %s", MaxTimeout)
	}
	if d.Retry.Attempts < 1 || d.Retry.Attempts > 20 {
		c.fail(p+".retry.attempts", "must be between 1 and 20")
	}
	if t := d.Retry.InitialDelay.D(); t < 0 || t > 24*time.Hour {
		c.fail(p+".retry.initialDelay", "must be between 0s and 24h")
	}
	if m := d.Retry.Multiplier; m < 1 || m > 10 {
		c.fail(p+".retry.multiplier", "must be between 1 and 10")
	}
	if d.Ordering != OrderingPerRecord && d.Ordering != OrderingNone {
		c.fail(p+".ordering", "must be per-record or none")
	}
	if d.Format != FormatSeedJSON && d.Format != FormatFHIR {
		c.fail(p+".format", "must be seed-json or fhir-r4")
	}
	switch d.Type {
	case "webhook":
		c.validateWebhook(p, d)
	case "sns":
		c.validateSNS(p, d)
	default:
		c.fail(p+".type", "must be webhook or sns")
	}
}

func (c *Config) validateWebhook(p string, d *Destination) {
	u, err := url.Parse(d.URL)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		c.fail(p+".url", "must be an absolute https URL")
	case d.Local && !loopback(u):
		c.fail(p+".url", "must be http://127.0.0.1:PORT/... or http://[::1]:PORT/... for a local destination")
	case u.Scheme == "http" && !c.Destinations.AllowPlainHTTP && !d.Local:
		c.fail(p+".url", "must use https (set destinations.allowPlainHTTP only for development)")
	case u.User != nil:
		c.fail(p+".url", "must not hold credentials: use auth.basic")
	}
	if d.TopicARN != "" || d.Region != "" || d.Endpoint != "" || d.RoleARN != "" {
		c.fail(p, "topicArn, region, endpoint and roleArn belong to sns destinations")
		return
	}
	c.validateAuth(p+".auth", &d.Auth)
	for name, value := range d.Headers {
		c.validateHeader(p+".headers."+name, name, &d.Auth)
		c.validateHeaderValue(p+".headers."+name, value)
	}
}

func (c *Config) validateAuth(p string, a *Auth) {
	n := 0
	for _, set := range []bool{a.APIKey != nil, a.Bearer != nil, a.Basic != nil, a.OAuth2 != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		c.fail(p, "give at most one of apiKey, bearer, basic and oauth2")
		return
	}
	switch {
	case a.APIKey != nil && (http.CanonicalHeaderKey(a.APIKey.Header) == "" || !validHeaderName(a.APIKey.Header) || a.APIKey.Value == ""):
		c.fail(p+".apiKey", "needs a header name and a value")
	case a.APIKey != nil && c.reservedHeader(a.APIKey.Header):
		c.fail(p+".apiKey.header", "%q is set by pads itself", a.APIKey.Header)
	case a.APIKey != nil:
		c.validateHeaderValue(p+".apiKey.value", a.APIKey.Value)
	case a.Bearer != nil && a.Bearer.Token == "":
		c.fail(p+".bearer.token", "must not be empty")
	case a.Bearer != nil:
		c.validateHeaderValue(p+".bearer.token", a.Bearer.Token)
	case a.Basic != nil && (a.Basic.Username == "" || strings.Contains(a.Basic.Username, ":")):
		c.fail(p+".basic.username", "must not be empty nor contain ':'")
	case a.OAuth2 != nil:
		u, err := url.Parse(a.OAuth2.TokenURL)
		if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && c.Destinations.AllowPlainHTTP)) {
			c.fail(p+".oauth2.tokenURL", "must be an absolute https URL")
		}
		if a.OAuth2.ClientID == "" || a.OAuth2.ClientSecret == "" {
			c.fail(p+".oauth2", "needs clientID and clientSecret")
		}
	}
	if a.HMAC != nil && c.storedSecret(p+".hmac", a.HMAC) {
		c.validateHMAC(p, a.HMAC)
	}
}

// storedSecret puts a stored secret in h.Secret, reporting false when it
// cannot (the problem is reported).
func (c *Config) storedSecret(p string, h *HMACAuth) bool {
	if h.StoredSecret == "" {
		return true
	}
	if h.Secret != "" {
		c.fail(p, "give one of secret and storedSecret")
		return false
	}
	s, err := StoredWebhookSecret(c.DataDir, h.StoredSecret)
	if err != nil {
		c.fail(p+".storedSecret", "%v", err)
		return false
	}
	h.Secret = s
	return true
}

// loopback reports a plain http URL to a loopback IP address. Names are
// refused: what "localhost" resolves to is not pads' to check.
func loopback(u *url.URL) bool {
	ip, err := netip.ParseAddr(u.Hostname())
	return u.Scheme == "http" && err == nil && ip.IsLoopback()
}

// WebhookSecret decodes a Standard Webhooks secret: whsec_ and base64 of at
// least 24 bytes.
func WebhookSecret(s string) ([]byte, error) {
	b64, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return nil, fmt.Errorf("must be whsec_ followed by base64")
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) < 24 || len(b) > 64 {
		return nil, fmt.Errorf("must be whsec_ followed by base64 of 24 to 64 bytes")
	}
	return b, nil
}

func (c *Config) validateHeader(p, name string, a *Auth) {
	if !validHeaderName(name) {
		c.fail(p, "is not a valid header name")
	} else if c.reservedHeader(name) || (strings.EqualFold(name, "Authorization") && (a.Bearer != nil || a.Basic != nil || a.OAuth2 != nil)) {
		c.fail(p, "is set by pads itself and cannot be overridden")
	}
}

// validateHeaderValue refuses control characters (a tab aside) in a value
// sent as a header: CR or LF would split the header, and Go's client
// refuses such a request, so every attempt would fail.
func (c *Config) validateHeaderValue(p, value string) {
	for _, r := range value {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			c.fail(p, "must not contain control characters (CR, LF, NUL, ...)")
			return
		}
	}
}

// reservedHeader reports headers that carry the delivery's identity,
// signature or framing: a custom header must not replace them.
func (c *Config) reservedHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "content-type", "content-length", "host", "user-agent", "transfer-encoding", "connection":
		return true
	}
	return strings.HasPrefix(n, "webhook-") || strings.HasPrefix(n, "x-"+strings.ToLower(c.ServiceName)+"-")
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 127 || !strings.ContainsRune("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", r) {
			return false
		}
	}
	return true
}

func (c *Config) validateSNS(p string, d *Destination) {
	m := topicARNRE.FindStringSubmatch(d.TopicARN)
	switch {
	case m == nil:
		c.fail(p+".topicArn", "must be an SNS topic ARN, arn:aws:sns:<region>:<account>:<name>")
	case d.Region == "":
		c.fail(p+".region", "is required for sns destinations")
	case d.Region != m[1]:
		c.fail(p+".region", "%q disagrees with the topic ARN's region %q", d.Region, m[1])
	}
	if d.Endpoint != "" {
		if u, err := url.Parse(d.Endpoint); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			c.fail(p+".endpoint", "must be an absolute URL")
		} else if u.Scheme == "http" && !c.Destinations.AllowPlainHTTP {
			c.fail(p+".endpoint", "must use https (set destinations.allowPlainHTTP only for development)")
		}
	}
	if d.RoleARN != "" && !roleARNRE.MatchString(d.RoleARN) {
		c.fail(p+".roleArn", "must be an IAM role ARN, arn:aws:iam::<account>:role/<name>")
	}
	if d.URL != "" || len(d.Headers) > 0 || d.Auth != (Auth{}) || d.Local {
		c.fail(p, "url, headers, auth and local belong to webhook destinations")
	}
}

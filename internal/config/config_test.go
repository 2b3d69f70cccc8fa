package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var exampleEnv = env(map[string]string{
	"PADS_JWT_KEY":        config.NewSecret(),
	"PADS_ENCRYPTION_KEY": config.NewSecret(),
	"ACME_SECOND_KEY":     "a-second-key-of-some-length",
	"ACME_OUTBOUND_KEY":   "outbound",
	"ACME_WHSEC":          "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	"ACME_STAGING_BEARER": "staging-token",
})

func TestLoadAcceptsTheProductExample(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("testdata/product-example.yaml", exampleEnv)
	if err != nil {
		t.Fatal(err)
	}
	acme := cfg.Client("acme")
	if acme == nil || !acme.Full() || len(acme.KeyDigests()) != 2 {
		t.Fatalf("client acme = %+v", acme)
	}
	if d := config.DigestAPIKey("a-second-key-of-some-length"); acme.KeyDigests()[1] != d {
		t.Fatal("a key given in clear must be kept as its digest")
	}
	f, owner := cfg.Funnel("acme-main-staging")
	if f == nil || owner != acme || f.Environment != "staging" {
		t.Fatalf("funnel = %+v owner %v", f, owner)
	}
	if f, _ := cfg.Funnel("acme-main"); f.Environment != config.DefaultEnvironment {
		t.Fatalf("default environment = %q", f.Environment)
	}
	prod := acme.DestinationsFor("production")
	if len(prod) != 2 || prod[0].Auth.HMAC.Secret != "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" || prod[0].Retry.Multiplier != 4 {
		t.Fatalf("production destinations = %+v", prod)
	}
	if got := acme.DestinationsFor("staging")[0]; got.Timeout.D() != 30*time.Second || got.Retry.Attempts != 3 || got.Auth.Bearer.Token != "staging-token" {
		t.Fatalf("staging destination defaults = %+v", got)
	}
	if cfg.TokenTTL.D() != time.Hour || cfg.Limits.MaxBodyBytes != 64<<10 || cfg.Limits.LoginFailures != 10 {
		t.Fatalf("defaults = %+v", cfg)
	}
	if acme.Limits != (config.ClientLimits{SavesPerSecond: 200, Burst: 400}) {
		t.Fatalf("client limits = %+v", acme.Limits)
	}
	if !cfg.TLS.Enabled() || cfg.TLS.KeyFile != "/etc/pads/tls.key" {
		t.Fatalf("tls = %+v", cfg.TLS)
	}
}

const minimal = `
clients:
  - id: acme
    apiKeys:
      - key: "0123456789abcdef"
    funnels:
      - id: acme-main
`

func TestParseRejectsBadConfigWithItsLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"unknown top-level key", "listen: 127.0.0.1:1\nlisten_port: 8\n" + minimal, `line 2: unknown key "listen_port"`},
		{"unknown nested key", strings.Replace(minimal, "funnels:", "funnel:", 1), `line 6: unknown key "funnel" in clients[0]`},
		{"unset env", strings.Replace(minimal, `"0123456789abcdef"`, "${NOT_SET}", 1), "line 5: environment variable NOT_SET is not set"},
		{"bad duration", "tokenTTL: soon\n" + minimal, `line 1: "soon" is not a duration`},
		{"short ttl", "tokenTTL: 1s\n" + minimal, "line 1: tokenTTL: must be between 1m and 24h"},
		{"no clients", "listen: 127.0.0.1:8080\n", "clients: at least one client is needed"},
		{"short api key", strings.Replace(minimal, `"0123456789abcdef"`, "short", 1), "line 5: clients[0].apiKeys[0].key: must be at least 16 characters"},
		{"bad digest", strings.Replace(minimal, `key: "0123456789abcdef"`, "sha256: ABC", 1), "clients[0].apiKeys[0].sha256: must be 64 lower-case hexadecimal digits"},
		{"bad subscription", minimal + "    subscription: everything\n", "clients[0].subscription: must be non-sensitive or full"},
		{"duplicate funnel", minimal + "  - id: other\n    apiKeys: [{key: \"0123456789abcdef\"}]\n    funnels: [{id: acme-main}]\n", `line 10: clients[1].funnels[0].id: funnel "acme-main" is also defined by client "acme"`},
		{"bad jwt key", "secrets:\n  jwtKeys:\n    - id: k1\n      key: c2hvcnQ=\n" + minimal, "line 4: secrets.jwtKeys[0].key: must be base64 of at least 32 bytes"},
		{"plain http destination", minimal + "    destinations:\n      - type: webhook\n        url: http://example.com/x\n", "line 10: clients[0].destinations[0].url: must use https"},
		{"two auth methods", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        auth:\n          bearer: {token: t}\n          basic: {username: u, password: p}\n", "clients[0].destinations[0].auth: give at most one of"},
		{"bad whsec", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        auth:\n          hmac: {secret: abc}\n", "clients[0].destinations[0].auth.hmac.secret: must be whsec_"},
		{"header value with CR LF", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        headers: {X-Tenant: \"a\\r\\nX-Evil: 1\"}\n", "line 11: clients[0].destinations[0].headers.X-Tenant: must not contain control characters"},
		{"api key value with NUL", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        auth:\n          apiKey: {header: X-Key, value: \"k\\0\"}\n", "line 12: clients[0].destinations[0].auth.apiKey.value: must not contain control characters"},
		{"reserved header", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        headers: {webhook-id: x}\n", "headers.webhook-id: is set by pads itself"},
		{"timeout over 30s", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        timeout: 31s\n", "line 11: clients[0].destinations[0].timeout: must be more than 0 and at most 30s"},
		{"bad topic arn", minimal + "    destinations:\n      - type: sns\n        topicArn: arn:aws:sqs:us-east-1:123456789012:q\n        region: us-east-1\n", "line 10: clients[0].destinations[0].topicArn: must be an SNS topic ARN"},
		{"missing region", minimal + "    destinations:\n      - type: sns\n        topicArn: arn:aws:sns:us-east-1:123456789012:t\n", "line 9: clients[0].destinations[0].region: is required for sns destinations"},
		{"region disagrees", minimal + "    destinations:\n      - type: sns\n        topicArn: arn:aws:sns:us-east-1:123456789012:t\n        region: eu-west-1\n", `clients[0].destinations[0].region: "eu-west-1" disagrees`},
		{"bad role arn", minimal + "    destinations:\n      - type: sns\n        topicArn: arn:aws:sns:us-east-1:123456789012:t\n        region: us-east-1\n        roleArn: admin\n", "clients[0].destinations[0].roleArn: must be an IAM role ARN"},
		{"sns key on a webhook", minimal + "    destinations:\n      - type: webhook\n        url: https://example.com/x\n        region: us-east-1\n", "clients[0].destinations[0]: topicArn, region, endpoint and roleArn belong to sns destinations"},
		{"unknown type", minimal + "    destinations:\n      - type: email\n", "clients[0].destinations[0].type: must be webhook or sns"},
		{"lease under two timeouts", "limits: {deliveryLease: 30s}\n" + minimal + "    destinations:\n      - {type: webhook, url: \"https://example.com/x\", timeout: 20s}\n",
			"limits.deliveryLease: must be at least 50s: twice the longest destination timeout (20s) and 10s"},
		{"bad destination id", minimal + "    destinations:\n      - id: \"a b\"\n        type: webhook\n        url: https://example.com/x\n", "clients[0].destinations[0].id: must be 1 to 128 letters"},
		{"duplicate destination id", minimal + "    destinations:\n      - {id: hook, type: webhook, url: \"https://example.com/x\"}\n      - {id: hook, type: webhook, url: \"https://example.com/y\"}\n",
			`clients[0].destinations[1].id: destination "hook" is defined twice for client "acme"`},
		{"connections", "limits: {maxConnections: 8}\n" + minimal, "line 1: limits.maxConnections: must be between 16 and 1048576"},
		{"header timeout", "limits:\n  readHeaderTimeout: 0.5s\n" + minimal, "line 2: limits.readHeaderTimeout: must be between 1s and 5m"},
		{"read timeout under header timeout", "limits:\n  readHeaderTimeout: 20s\n  readTimeout: 10s\n" + minimal, "line 3: limits.readTimeout: must be between limits.readHeaderTimeout (20s) and 1h"},
		{"write timeout", "limits:\n  writeTimeout: 2h\n" + minimal, "line 2: limits.writeTimeout: must be between 1s and 1h"},
		{"idle timeout", "limits:\n  idleTimeout: 100ms\n" + minimal, "line 2: limits.idleTimeout: must be between 1s and 1h"},
		{"negative rate", minimal + "    limits: {savesPerSecond: -5}\n", "line 8: clients[0].limits.savesPerSecond: must be more than 0 and at most 1000000"},
		{"rate not a number", minimal + "    limits: {savesPerSecond: lots}\n", "line 8"},
		{"zero burst", minimal + "    limits: {savesPerSecond: 5, burst: -1}\n", "line 8: clients[0].limits.burst: must be between 1 and 1000000"},
		{"tls without key", "tls: {certFile: /etc/pads/tls.crt}\n" + minimal, "line 1: tls: give both certFile and keyFile"},
		{"bad proxy", "trustedProxies: [10.0.0.0/8, proxy.internal]\n" + minimal, "line 1: trustedProxies[1]: must be an IP address or a CIDR range"},
		{"default id taken", minimal + "    destinations:\n      - {type: webhook, url: \"https://example.com/x\"}\n      - {id: production-1, type: webhook, url: \"https://example.com/y\"}\n",
			`destination "production-1" is defined twice`},
		{"retention under a minute", minimal + "    retention: {bodies: 30s}\n", "line 8: clients[0].retention.bodies: must be between 1m0s and"},
		{"retention of deliveries negative", minimal + "    retention:\n      deliveries: -1h\n", "line 9: clients[0].retention.deliveries: must be between 1m0s and"},
		{"records neither forever nor a duration", minimal + "    retention: {records: always}\n", `line 8: "always" is neither forever nor a duration`},
		{"records over ten years", minimal + "    retention: {records: 100000h}\n", "clients[0].retention.records: must be between 1m0s and"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLimitsDefaultGenerouslyAndFollowTheFile(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(minimal+"  - id: slow\n    apiKeys: [{key: \"0123456789abcdef\"}]\n    funnels: [{id: slow-main}]\n    limits: {savesPerSecond: 2.5}\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Limits
	if l.MaxConnections != 1024 || l.ReadHeaderTimeout.D() != 10*time.Second || l.ReadTimeout.D() != 30*time.Second ||
		l.WriteTimeout.D() != 30*time.Second || l.IdleTimeout.D() != 120*time.Second {
		t.Fatalf("connection limits = %+v", l)
	}
	if got := cfg.Client("acme").Limits; got != (config.ClientLimits{SavesPerSecond: 1000, Burst: 2000}) {
		t.Fatalf("default client limits = %+v", got)
	}
	if got := cfg.Client("slow").Limits; got != (config.ClientLimits{SavesPerSecond: 2.5, Burst: 5}) {
		t.Fatalf("a rate without a burst gets two seconds' worth: %+v", got)
	}
	if cfg.TLS.Enabled() {
		t.Fatal("TLS is off unless a certificate is named")
	}
}

func TestTrustedProxiesTakeRangesAndSingleAddresses(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte("trustedProxies: [10.1.0.0/16, 192.0.2.7, \"fd00::/8\"]\n"+minimal), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"10.1.2.3": true, "10.2.0.1": false, "192.0.2.7": true, "192.0.2.8": false,
		"fd12::1": true, "fe80::1": false, "::ffff:10.1.9.9": true,
	} {
		if got := cfg.TrustedProxy(netip.MustParseAddr(addr)); got != want {
			t.Errorf("TrustedProxy(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestParseAllowsPlainHTTPWhenAsked(t *testing.T) {
	t.Parallel()
	y := "destinations: {allowPlainHTTP: true}\n" + minimal + "    destinations:\n      - type: webhook\n        url: http://127.0.0.1:9/x\n"
	if _, err := config.Parse([]byte(y), env(nil)); err != nil {
		t.Fatal(err)
	}
}

func TestStarterWritesAWorkingConfigOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	path, key, created, err := config.Starter(dir, "")
	if err != nil || key == "" || !created {
		t.Fatalf("Starter = %q, %q, %v, %v", path, key, created, err)
	}
	cfg, err := config.Load(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	demo := cfg.Client("demo")
	if demo == nil || demo.KeyDigests()[0] != config.DigestAPIKey(key) || cfg.DataDir != dir {
		t.Fatalf("starter config = %+v", cfg)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), key) {
		t.Fatal("starter config holds the API key in clear")
	}
	// Its destination is pads listen's, signed with the stored secret
	// that pads listen reads, and it alone may use plain http to loopback.
	listen := cfg.Destination("demo", "listen")
	secret, err := config.StoredWebhookSecret(dir, config.ListenSecret)
	if listen == nil || err != nil || listen.URL != "http://"+config.DefaultListenAddr+config.ListenPath ||
		!listen.Local || listen.Auth.HMAC == nil || listen.Auth.HMAC.Secret != secret || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("starter destination = %+v, secret %q, %v", listen, secret, err)
	}
	if cfg.Destinations.AllowPlainHTTP || cfg.Destinations.AllowPrivateNetworks {
		t.Fatal("the starter config must not relax every destination's checks")
	}
	if _, again, _, err := config.Starter(dir, ""); err != nil || again != "" {
		t.Fatalf("second Starter = %q, %v; want no new key", again, err)
	}
	// Keys written later, by LoadKeys, are the ones the starter wrote.
	if _, generated, err := config.LoadKeys(cfg); err != nil || generated {
		t.Fatalf("LoadKeys after Starter: generated %v, %v", generated, err)
	}
}

func TestStarterAddsItsSecretToAnExistingSecretsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := config.Parse([]byte("dataDir: "+dir+"\n"+minimal), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	before, _, err := config.LoadKeys(cfg) // an older data dir: no webhook secrets
	if err != nil {
		t.Fatal(err)
	}
	if _, _, created, err := config.Starter(dir, "127.0.0.1:9999"); err != nil || created {
		t.Fatalf("Starter: created %v, %v", created, err)
	}
	after, _, err := config.LoadKeys(cfg)
	if err != nil || string(after.Encryption[0].Secret) != string(before.Encryption[0].Secret) || string(after.JWT[0].Secret) != string(before.JWT[0].Secret) {
		t.Fatalf("the existing keys must stay: %v", err)
	}
	if _, err := config.StoredWebhookSecret(dir, config.ListenSecret); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, config.SecretsFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode = %v, %v", st, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, config.StarterFile))
	if !strings.Contains(string(data), "http://127.0.0.1:9999/webhooks/pads") {
		t.Fatalf("the listen address given must be the destination's:\n%s", data)
	}
}

func TestLocalDestinationsAreLoopbackOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := config.EnsureWebhookSecret(dir, "listen"); err != nil {
		t.Fatal(err)
	}
	dest := func(url, extra string) string {
		return "dataDir: " + dir + "\n" + minimal + "    destinations:\n      - {type: webhook, local: true, url: \"" + url + "\"" + extra + "}\n"
	}
	tests := []struct {
		name, yaml, want string
	}{
		{"loopback v4", dest("http://127.0.0.1:8090/x", ", auth: {hmac: {storedSecret: listen}}"), ""},
		{"loopback v6", dest("http://[::1]:8090/x", ""), ""},
		{"a name", dest("http://localhost:8090/x", ""), "for a local destination"},
		{"another host", dest("http://10.0.0.8:8090/x", ""), "for a local destination"},
		{"https", dest("https://127.0.0.1:8090/x", ""), "for a local destination"},
		{"plain http elsewhere stays refused", minimal + "    destinations:\n      - {type: webhook, url: \"http://127.0.0.1:1/x\"}\n", "must use https"},
		{"a stored secret that is not there", dest("http://127.0.0.1:8090/x", ", auth: {hmac: {storedSecret: other}}"), `has no webhook secret "other"`},
		{"both secrets", dest("http://127.0.0.1:8090/x", ", auth: {hmac: {storedSecret: listen, secret: x}}"), "give one of secret and storedSecret"},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte(tt.yaml), env(nil))
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestLoadKeysGeneratesOnceWithMode0600(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte("dataDir: "+t.TempDir()+"\n"+minimal), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	k1, generated, err := config.LoadKeys(cfg)
	if err != nil || !generated || len(k1.JWT[0].Secret) != 32 || len(k1.Encryption[0].Secret) != 32 {
		t.Fatalf("LoadKeys = %+v, %v, %v", k1, generated, err)
	}
	st, err := os.Stat(filepath.Join(cfg.DataDir, config.SecretsFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode = %v, %v", st.Mode(), err)
	}
	k2, generated, err := config.LoadKeys(cfg)
	if err != nil || generated || string(k2.Encryption[0].Secret) != string(k1.Encryption[0].Secret) {
		t.Fatal("second LoadKeys must read the same keys back")
	}
}

func TestDestinationsAreFoundByIDAndByTheKeyOfOldDeliveries(t *testing.T) {
	t.Parallel()
	y := minimal + `    destinations:
      - {id: main-hook, type: webhook, url: "https://example.com/a"}
      - {type: webhook, url: "https://example.com/b"}
      - {environment: staging, type: webhook, url: "https://example.com/c"}
      - {type: webhook, url: "https://example.com/d"}
`
	cfg, err := config.Parse([]byte(y), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	// Without an id, the environment and the place among its destinations:
	// not the URL, so rotating a URL keeps a destination's deliveries.
	for id, url := range map[string]string{"main-hook": "https://example.com/a", "production-2": "https://example.com/b",
		"staging-1": "https://example.com/c", "production-3": "https://example.com/d"} {
		if d := cfg.Destination("acme", id); d == nil || d.URL != url {
			t.Errorf("Destination(acme, %s) = %+v, want %s", id, d, url)
		}
	}
	if cfg.Destination("other", "main-hook") != nil {
		t.Error("a destination id is found only within its client")
	}
	// Deliveries made before destinations had ids name them by a hash of
	// client, environment, type and URL ("webhook-" and 16 hex digits).
	legacy := "webhook-" + legacyHash("acme", "production", "webhook", "https://example.com/a")
	if d := cfg.Destination("acme", legacy); d == nil || d.ID != "main-hook" {
		t.Errorf("legacy key %s resolves to %+v", legacy, d)
	}
}

func legacyHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(append(parts, ""), "\x00")))
	return hex.EncodeToString(h[:8])
}

func TestWarningsNameShortAPIKeysWithoutTheKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key string
		warn      bool
	}{
		{"16 characters", `key: "0123456789abcdef"`, true},
		{"22 base64 characters", `key: "Zm9vYmFyYmF6cXV4MTIzNDU2"`, false},
		{"31 hexadecimal digits", `key: "0123456789abcdef0123456789abcde"`, true},
		{"32 hexadecimal digits", `key: "0123456789abcdef0123456789abcdef"`, false},
		{"a digest", "sha256: " + strings.Repeat("ab", 32), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(strings.Replace(minimal, `key: "0123456789abcdef"`, tt.key, 1)), env(nil))
			if err != nil {
				t.Fatal(err)
			}
			w := cfg.Warnings()
			if tt.warn != (len(w) == 1) {
				t.Fatalf("warnings = %q", w)
			}
			if tt.warn && (!strings.HasPrefix(w[0], "line 5: clients[0].apiKeys[0]") || strings.Contains(w[0], "0123456789")) {
				t.Fatalf("warning = %q", w[0])
			}
		})
	}
}

func TestParseReportsEveryProblemWithItsLine(t *testing.T) {
	t.Parallel()
	y := "tokenTTL: 1s\nlisten_port: 8\nlimits: {maxConnections: 8}\n" + minimal +
		"    subscription: everything\n" +
		"    destinations:\n      - type: webhook\n        url: http://example.com/x\n        timeout: 31s\n" +
		"  - id: other\n    apiKeys: [{key: \"${NOT_SET}\"}]\n    funnels: [{id: acme-main}]\n"
	_, err := config.Parse([]byte(y), env(nil))
	var p *config.Problems
	if !errors.As(err, &p) {
		t.Fatalf("err = %v, want *config.Problems", err)
	}
	want := []string{
		`line 2: unknown key "listen_port"`,
		"line 17: environment variable NOT_SET is not set",
		"line 1: tokenTTL: must be between 1m and 24h",
		"line 3: limits.maxConnections: must be between 16 and 1048576",
		"line 11: clients[0].subscription: must be non-sensitive or full",
		"line 15: clients[0].destinations[0].timeout: must be more than 0 and at most 30s",
		"line 14: clients[0].destinations[0].url: must use https",
		`line 18: clients[1].funnels[0].id: funnel "acme-main" is also defined by client "acme"`,
	}
	if len(p.List) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(p.List), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(p.List[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, p.List[i], w)
		}
	}
	if !strings.HasPrefix(err.Error(), "8 problems:\n  line 2:") {
		t.Errorf("message = %q", err)
	}
}

func TestParseBoundsTheProblemsItLists(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range config.MaxProblems + 5 {
		fmt.Fprintf(&b, "unknown%d: x\n", i)
	}
	_, err := config.Parse([]byte(b.String()+minimal), env(nil))
	var p *config.Problems
	if !errors.As(err, &p) || len(p.List) != config.MaxProblems || p.More != 5 || !strings.HasSuffix(err.Error(), "... and 5 more") {
		t.Fatalf("err = %v", err)
	}
}

func TestRetentionDefaultsAndForever(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(minimal+"  - id: short\n    apiKeys: [{key: \"0123456789abcdef\"}]\n    funnels: [{id: short-main}]\n"+
		"    retention: {bodies: 1m, deliveries: 2h, records: 720h}\n  - id: kept\n    apiKeys: [{key: \"0123456789abcdef\"}]\n"+
		"    funnels: [{id: kept-main}]\n    retention: {records: forever}\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		client string
		want   config.Retention
	}{
		{"acme", config.DefaultRetention()},
		{"short", config.Retention{Bodies: config.Duration(time.Minute), Deliveries: config.Duration(2 * time.Hour), Records: config.Lifetime(720 * time.Hour)}},
		{"kept", config.DefaultRetention()},
	} {
		if got := cfg.Client(tt.client).Retention; got != tt.want {
			t.Errorf("%s: retention %+v, want %+v", tt.client, got, tt.want)
		}
	}
	if d := config.DefaultRetention(); d.Bodies.D() != 7*24*time.Hour || d.Deliveries.D() != 30*24*time.Hour || d.Records != config.Forever {
		t.Errorf("default retention %+v", d)
	}
}
